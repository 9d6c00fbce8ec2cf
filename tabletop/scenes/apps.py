from django.apps import AppConfig


class ScenesConfig(AppConfig):
    name = "tabletop.scenes"
    label = "scenes"

    def ready(self) -> None:
        from tabletop.scenes.systems import load_all

        load_all()
