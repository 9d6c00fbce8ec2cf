"""annulus (seed 000): operation challenges, a chain of d12s to make differ by one.

Everything web-side of this one game system lives in this package and in
``templates/systems/annulus/``. It is a Django app (``apps.py``, listed in
settings.TABLETOP_SYSTEMS); its ``System`` is registered with ``tabletop.systems`` by
``system.py`` once every app is ready.
"""
