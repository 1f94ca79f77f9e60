from django.urls import path

from simulate.pages import studies

urlpatterns = [
    path("", studies.study_list, name="study-list"),
    path("new/", studies.study_new, name="study-new"),
    path("compare/", studies.study_compare, name="study-compare"),
    path("<uuid:batch_id>/", studies.study_detail, name="study-detail"),
    path("<uuid:batch_id>/progress/", studies.study_progress, name="study-progress"),
    path("<uuid:batch_id>/cancel/", studies.study_cancel, name="study-cancel"),
    path("<uuid:batch_id>/rerun/", studies.study_rerun, name="study-rerun"),
    path("<uuid:batch_id>/publish/", studies.study_publish, name="study-publish"),
    path("<uuid:batch_id>/apply/", studies.study_apply, name="study-apply"),
    path("<uuid:batch_id>/undo/", studies.study_undo, name="study-undo"),
    path("<uuid:batch_id>/replay/", studies.study_replay, name="study-replay"),
]
