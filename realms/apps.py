from django.apps import AppConfig


class RealmsConfig(AppConfig):
    verbose_name = "Echo Realms"
    name = "realms"

    def ready(self) -> None:
        """Echo Realms matches become playable through the simulate services."""
        from realms.matches import RealmsMatches
        from simulate.services import register_game_matches

        register_game_matches(RealmsMatches())
