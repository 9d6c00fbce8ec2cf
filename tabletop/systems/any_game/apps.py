from tabletop.systems import apps


class AnyGameConfig(apps.SystemConfig):
    name = "tabletop.systems.any_game"
    verbose_name = "Any game"
