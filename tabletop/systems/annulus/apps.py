from tabletop.systems import apps


class AnnulusConfig(apps.SystemConfig):
    name = "tabletop.systems.annulus"
    verbose_name = "Annulus"
