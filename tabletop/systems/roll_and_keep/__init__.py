"""roll_and_keep (seed 001): d10 pools kept by mana colour; opposed, extended actions.

Everything web-side of this one game system lives in this package and in
``templates/systems/roll_and_keep/``. It is a Django app (``apps.py``, listed in
settings.TABLETOP_SYSTEMS); its ``System`` is registered with ``tabletop.systems`` by
``system.py`` once every app is ready.
"""
