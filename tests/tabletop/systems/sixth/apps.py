from tabletop.systems import apps


class CoinConfig(apps.SystemConfig):
    name = "tests.tabletop.systems.sixth"
    label = "coin"
    verbose_name = "Coin"
