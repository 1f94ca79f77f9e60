from django.apps import AppConfig


class SimulateConfig(AppConfig):
    name = "simulate"
