from django.apps import AppConfig


class LegendsConfig(AppConfig):
    verbose_name = "Akin Legends"
    name = "legends"

    def ready(self) -> None:
        """Akin Legends matches become playable through the simulate services."""
        from legends.matches import LegendsMatches
        from simulate.services import register_game_matches

        register_game_matches(LegendsMatches())
