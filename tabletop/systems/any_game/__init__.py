"""any_game: a table playing rules the app does not know (D&D, Pathfinder, a home brew).

Characters with free notes and saved rolls; every roll in the dice language (the dice box);
a currency the GM names per campaign (inspiration, hero points, luck...), which the GM steps on
the dashboard and a player spends one at a time; and an initiative order for its turns. Like
every system it is a Django app (``apps.py``, listed in settings.TABLETOP_SYSTEMS) whose
``System`` ``system.py`` registers; its templates are in ``templates/systems/any_game/``.
"""
