from tabletop.systems import apps


class TwoDiceConfig(apps.SystemConfig):
    name = "tabletop.systems.two_dice"
    verbose_name = "Two dice"
