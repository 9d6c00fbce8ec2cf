"""The two_dice ``System``: what this game system brings to the generic code, registered
when its app is ready (``apps.py``)."""

from rules import two_dice as rules_module
from tabletop.systems import api
from tabletop.systems.two_dice import (
    checks,
    demo,
    events,
    models,
    procedure_views,
    rollables,
    rolls,
    settings,
    sheet,
)

SYSTEM = api.register(
    api.System(
        slug="two_dice",
        sheet_model=models.TwoDiceSheet,
        label="Two Dice (2d6 + attribute, resources)",
        rules=rules_module,
        roll_kinds=tuple(rolls.KINDS),
        commands=checks.COMMANDS,
        event_kinds=events.EVENT_KINDS,
        due=(checks.resolve_due,),
        turns=procedure_views.TURN_EXTRAS,
        sheet=sheet.sheet,
        pools=sheet.pools,
        settings_form=settings.TwoDiceSettingsForm,
        demo=demo.demo,
        rollables=rollables.rollables,
        stylesheets=("systems/two_dice/two_dice.css",),
    )
)
