"""The annulus ``System``: what this game system brings to the generic code, registered
when its app is ready (``apps.py``)."""

from rules import annulus as rules_module
from tabletop.systems import api
from tabletop.systems.annulus import (
    actions,
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
        slug="annulus",
        sheet_model=models.AnnulusSheet,
        label="Annulus (operation challenges)",
        rules=rules_module,
        roll_kinds=tuple(rolls.KINDS),
        procedure_views=(procedure_views.VIEW,),
        commands=actions.COMMANDS,
        event_kinds=events.EVENT_KINDS,
        sheet=sheet.sheet,
        settings_form=settings.AnnulusSettingsForm,
        demo=demo.demo,
        rollables=rollables.rollables,
        stylesheets=("systems/annulus/annulus.css",),
        scripts=("systems/annulus/annulus.js",),
    )
)
