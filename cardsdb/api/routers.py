"""Routers: one per app, each with its own browsable root, all linked from /api/."""

from rest_framework.routers import DefaultRouter


class AppRouter(DefaultRouter):
    """A DefaultRouter whose root view has an app-specific name, so several can coexist."""

    def __init__(self, app: str, **kwargs):
        super().__init__(**kwargs)
        self.root_view_name = f"{app}-api-root"


class RootRouter(DefaultRouter):
    """The /api/ router; its root also links to each app's root."""

    def __init__(self, app_roots: dict[str, str], **kwargs):
        super().__init__(**kwargs)
        self.app_roots = app_roots

    def get_api_root_view(self, api_urls=None):
        api_root_dict = {prefix: self.routes[0].name.format(basename=basename)
                         for prefix, _viewset, basename in self.registry}
        api_root_dict.update(self.app_roots)
        return self.APIRootView.as_view(api_root_dict=api_root_dict)
