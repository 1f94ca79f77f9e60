from django.apps import AppConfig


class SimulateConfig(AppConfig):
    name = "simulate"

    def ready(self) -> None:
        """A card that a queued or running study of its game may play cannot be deleted."""
        from cardsdb.card_uses import register_card_users
        from simulate.batches import studies_using_card

        register_card_users("studies", "queued or running study", "queued or running studies", studies_using_card)
