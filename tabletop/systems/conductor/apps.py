from tabletop.systems import apps


class ConductorConfig(apps.SystemConfig):
    name = "tabletop.systems.conductor"
    verbose_name = "Conductor"
