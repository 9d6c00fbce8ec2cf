from importlib import import_module

from django.apps import AppConfig
from django.conf import settings


class SystemsConfig(AppConfig):
    """Imports each game system package named in ``settings.TABLETOP_SYSTEMS`` once every
    model is loaded; each package registers its ``System`` (see ``tabletop.systems``)."""

    name = "tabletop.systems"
    label = "systems"
    verbose_name = "Game systems"

    def ready(self) -> None:
        for path in settings.TABLETOP_SYSTEMS:
            import_module(path)
