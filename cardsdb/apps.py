from django.apps import AppConfig


class CardsdbConfig(AppConfig):
    name = "cardsdb"
    verbose_name = "Shared catalogue"

    def ready(self) -> None:
        from cardsdb import card_history, signals

        signals.connect()
        card_history.connect()
