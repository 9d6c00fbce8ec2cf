"""conductor (seed 002): d12 + skill, exploding d6 attacks, bennies, wilderness travel.

Everything web-side of this one game system lives in this package and in
``templates/systems/conductor/``. It is a Django app (``apps.py``, listed in
settings.TABLETOP_SYSTEMS); its ``System`` is registered with ``tabletop.systems`` by
``system.py`` once every app is ready.
"""
