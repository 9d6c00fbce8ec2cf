from django.apps import AppConfig


class ScenesConfig(AppConfig):
    name = "tabletop.scenes"
    label = "scenes"

    def ready(self) -> None:
        from tabletop.scenes import dicebox, procedures  # noqa: F401 - they register

        procedures.load_all()
