from django.apps import AppConfig


class RealmsConfig(AppConfig):
    verbose_name = "Echo Realms"
    name = "realms"

    def ready(self) -> None:
        """Echo Realms matches become playable through the simulate services and its studies in the balance lab,
        with their match and study pages; a card a saved army names cannot be deleted; every character's
        saves are versions."""
        from cardsdb.card_history import register_card_models
        from cardsdb.card_uses import register_card_users
        from cardsdb.choices import Game
        from realms.matches import RealmsMatches
        from realms.models import Character, armies_using_card
        from realms.pages.simulate import RealmsPages
        from realms.seating import SEATING
        from realms.studies import RealmsStudies
        from simulate.pages.games import register_game_pages
        from simulate.seating import register_game_seating
        from simulate.services import register_game_matches, register_game_studies

        register_game_matches(RealmsMatches())
        register_game_studies(RealmsStudies())
        register_game_seating(SEATING)
        register_game_pages(RealmsPages())
        register_card_models(Game.REALMS, [Character],
                             field_labels={"attack": "ATK", "defense": "DEF", "speed": "SPD", "health": "HP"})
        register_card_users("saved_armies", "saved army", "saved armies", armies_using_card)
