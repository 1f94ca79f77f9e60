from django.apps import AppConfig


class SimulateConfig(AppConfig):
    name = "simulate"

    def ready(self) -> None:
        """A card that a queued or running study of its game may play cannot be deleted; the engines' input
        errors are answered as the domain errors they declare themselves to be."""
        from cardsdb.card_uses import register_card_users
        from cardsdb.errors import DomainError
        from simulate.batches import studies_using_card
        from simulate.engine.errors import InputError

        register_card_users("studies", "queued or running study", "queued or running studies", studies_using_card)
        # The engines import no Django (they are pure Python): their errors join the base here.
        DomainError.register(InputError)
