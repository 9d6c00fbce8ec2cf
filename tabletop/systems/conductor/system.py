"""The conductor ``System``: what this game system brings to the generic code, registered
when its app is ready (``apps.py``)."""

from rules import conductor as rules_module
from tabletop.systems import api
from tabletop.systems.conductor import (
    bennies,
    demo,
    dice,
    events,
    expedition,
    models,
    procedure_views,
    rollables,
    rolls,
    settings,
    sheet,
    strike_back,
)

SYSTEM = api.register(
    api.System(
        slug="conductor",
        sheet_model=models.ConductorSheet,
        label="Conductor (d12 + skill, bennies, wilderness)",
        rules=rules_module,
        roll_kinds=tuple(rolls.KINDS),
        procedure_views=(procedure_views.VIEW,),
        commands=(*bennies.COMMANDS, *strike_back.COMMANDS, *expedition.COMMANDS),
        event_kinds=events.EVENT_KINDS,
        card_controls=bennies.card_controls,
        dashboard=strike_back.dashboard,
        sheet=sheet.sheet,
        settings_form=settings.ConductorSettingsForm,
        demo=demo.demo,
        rollables=rollables.rollables,
        currencies=sheet.CURRENCIES,
        read_die=dice.read_die,
        stylesheets=("systems/conductor/conductor.css",),
    )
)
