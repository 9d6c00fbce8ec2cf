from importlib import import_module

from django.apps import AppConfig


class SystemsConfig(AppConfig):
    """The registry of game systems (``tabletop.systems``): generic, it names none of them."""

    name = "tabletop.systems"
    label = "systems"
    verbose_name = "Game systems"


class SystemConfig(AppConfig):
    """One game system's app (``tabletop/systems/<slug>/``, or a test's): once every model is
    loaded it imports the package's ``system`` module, which registers its ``System``. An app,
    a system owns its templates, static files and (in time) its models and migrations."""

    def ready(self) -> None:
        import_module(f"{self.name}.system")
