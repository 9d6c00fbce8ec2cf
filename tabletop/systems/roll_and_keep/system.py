"""The roll_and_keep ``System``: what this game system brings to the generic code, registered
when its app is ready (``apps.py``)."""

from rules import roll_and_keep as rules_module
from tabletop.systems import api
from tabletop.systems.roll_and_keep import (
    contests,
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
        slug="roll_and_keep",
        sheet_model=models.RollAndKeepSheet,
        label="Roll and Keep (d10 pools, mana)",
        rules=rules_module,
        roll_kinds=tuple(rolls.KINDS),
        procedure_views=(procedure_views.VIEW,),
        commands=contests.COMMANDS,
        event_kinds=events.EVENT_KINDS,
        sheet=sheet.sheet,
        settings_form=settings.RollAndKeepSettingsForm,
        demo=demo.demo,
        rollables=rollables.rollables,
    )
)
