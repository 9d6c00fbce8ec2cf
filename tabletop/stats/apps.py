from django.apps import AppConfig


class StatsConfig(AppConfig):
    name = "tabletop.stats"
    label = "stats"
