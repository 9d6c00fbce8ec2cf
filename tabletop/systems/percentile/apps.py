from tabletop.systems import apps


class PercentileConfig(apps.SystemConfig):
    name = "tabletop.systems.percentile"
    verbose_name = "Percentile"
