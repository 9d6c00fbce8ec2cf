"""two_dice (seed 003): 2d6 + attribute against 15, resources, hinder and resist.

Everything web-side of this one game system lives in this package and in
``templates/systems/two_dice/``. It registers its ``System`` with ``tabletop.systems``
(imported once Django's apps are ready: settings.TABLETOP_SYSTEMS).
"""

from rules import two_dice as rules_module
from tabletop import systems
from tabletop.systems.two_dice import checks, demo, events, panels, rolls, settings, sheet

SYSTEM = systems.register(
    systems.System(
        slug="two_dice",
        label="Two Dice (2d6 + attribute, resources)",
        rules=rules_module,
        roll_kinds=tuple(rolls.KINDS),
        commands=checks.COMMANDS,
        event_kinds=events.EVENT_KINDS,
        due=(checks.resolve_due,),
        extra={"turns": panels.TURN_EXTRAS},
        sheet=sheet.sheet,
        settings_form=settings.TwoDiceSettingsForm,
        demo=demo.demo,
    )
)
