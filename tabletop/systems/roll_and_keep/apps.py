from tabletop.systems import apps


class RollAndKeepConfig(apps.SystemConfig):
    name = "tabletop.systems.roll_and_keep"
    verbose_name = "Roll and keep"
