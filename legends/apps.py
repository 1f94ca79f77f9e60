from django.apps import AppConfig


class LegendsConfig(AppConfig):
    verbose_name = "Akin Legends"
    name = "legends"

    def ready(self) -> None:
        """Akin Legends matches become playable through the simulate services and its studies in the balance lab,
        with their match and study pages; a card a saved setup names cannot be deleted; every card's saves
        are versions."""
        from cardsdb.card_history import register_card_models
        from cardsdb.card_uses import register_card_users
        from cardsdb.choices import Game
        from legends.matches import LegendsMatches
        from legends.models import DefenseCard, Protector, Spirit, SummoningCard, setups_using_card
        from legends.pages.simulate import LegendsPages
        from legends.seating import SEATING
        from legends.studies import LegendsStudies
        from simulate.pages.games import register_game_pages
        from simulate.seating import register_game_seating
        from simulate.services import register_game_matches, register_game_studies

        register_game_matches(LegendsMatches())
        register_game_studies(LegendsStudies())
        register_game_seating(SEATING)
        register_game_pages(LegendsPages())
        register_card_models(Game.LEGENDS, [Spirit, Protector, DefenseCard, SummoningCard])
        register_card_users("saved_setups", "saved setup", "saved setups", setups_using_card)
