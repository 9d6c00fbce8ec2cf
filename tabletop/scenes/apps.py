from django.apps import AppConfig


class ScenesConfig(AppConfig):
    name = "tabletop.scenes"
    label = "scenes"

    def ready(self) -> None:
        from tabletop.scenes import procedures, systems

        systems.load_all()
        procedures.load_all()
