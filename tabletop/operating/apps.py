from django.apps import AppConfig


class OperatingConfig(AppConfig):
    name = "tabletop.operating"
    label = "operating"
    verbose_name = "Operating the site"
