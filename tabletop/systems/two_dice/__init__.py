"""two_dice (seed 003): 2d6 + attribute against 15, resources, hinder and resist.

Everything web-side of this one game system lives in this package and in
``templates/systems/two_dice/``. It is a Django app (``apps.py``, listed in
settings.TABLETOP_SYSTEMS); its ``System`` is registered with ``tabletop.systems`` by
``system.py`` once every app is ready.
"""
