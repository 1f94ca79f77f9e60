from django.apps import AppConfig


class LegendsConfig(AppConfig):
    verbose_name = "Akin Legends"
    name = "legends"
