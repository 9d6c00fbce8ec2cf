"""The percentile ``System``: what this game system brings to the generic code, registered
when its app is ready (``apps.py``)."""

from rules import percentile as rules_module
from tabletop.systems import api
from tabletop.systems.percentile import (
    demo,
    dice,
    events,
    maneuvers,
    models,
    plot_points,
    procedure_views,
    rollables,
    rolls,
    settings,
    sheet,
)

SYSTEM = api.register(
    api.System(
        slug="percentile",
        sheet_model=models.PercentileSheet,
        label="Percentile (open-ended d100, plot points)",
        rules=rules_module,
        roll_kinds=tuple(rolls.KINDS),
        procedure_views=(procedure_views.VIEW,),
        commands=(*maneuvers.COMMANDS, *plot_points.COMMANDS),
        event_kinds=events.EVENT_KINDS,
        card_controls=plot_points.card_controls,
        scene_extras=plot_points.scene_extras,
        due=(plot_points.settle_due,),
        dashboard=plot_points.dashboard,
        sheet=sheet.sheet,
        settings_form=settings.PercentileSettingsForm,
        demo=demo.demo,
        rollables=rollables.rollables,
        read_die=dice.read_die,
        stylesheets=("systems/percentile/percentile.css",),
        currencies=sheet.CURRENCIES,
    )
)
