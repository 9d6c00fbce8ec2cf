from django.apps import AppConfig


class ScenesConfig(AppConfig):
    name = "tabletop.scenes"
    label = "scenes"

    def ready(self) -> None:
        # The generic roll kind, procedure view, commands and event kinds register themselves.
        from tabletop.scenes import actions, dicebox, kinds  # noqa: F401
        from tabletop.scenes.procedures import turns  # noqa: F401
