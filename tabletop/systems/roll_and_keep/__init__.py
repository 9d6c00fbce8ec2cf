"""roll_and_keep (seed 001): d10 pools kept by mana colour; opposed, extended actions.

Everything web-side of this one game system lives in this package and in
``templates/systems/roll_and_keep/``. It registers its ``System`` with ``tabletop.systems``
(imported once Django's apps are ready: settings.TABLETOP_SYSTEMS).
"""

from rules import roll_and_keep as rules_module
from tabletop import systems
from tabletop.systems.roll_and_keep import contests, demo, events, panels, rolls, settings, sheet

SYSTEM = systems.register(
    systems.System(
        slug="roll_and_keep",
        label="Roll and Keep (d10 pools, mana)",
        rules=rules_module,
        roll_kinds=tuple(rolls.KINDS),
        panels=(panels.PANEL,),
        commands=contests.COMMANDS,
        event_kinds=events.EVENT_KINDS,
        sheet=sheet.sheet,
        settings_form=settings.RollAndKeepSettingsForm,
        demo=demo.demo,
    )
)
