from django.apps import AppConfig


class CardsdbConfig(AppConfig):
    name = "cardsdb"
    verbose_name = "Shared catalogue"

    def ready(self) -> None:
        from cardsdb import signals

        signals.connect()
