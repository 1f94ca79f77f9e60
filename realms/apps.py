from django.apps import AppConfig


class RealmsConfig(AppConfig):
    verbose_name = "Echo Realms"
    name = "realms"
