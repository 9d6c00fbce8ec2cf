"""percentile (seed 004): open-ended d100 on Chart 14.1, maneuvers, plot points.

Everything web-side of this one game system lives in this package and in
``templates/systems/percentile/``. It is a Django app (``apps.py``, listed in
settings.TABLETOP_SYSTEMS); its ``System`` is registered with ``tabletop.systems`` by
``system.py`` once every app is ready.
"""
