"""conductor (seed 002): d12 + skill, exploding d6 attacks, bennies, wilderness travel.

Everything web-side of this one game system lives in this package and in
``templates/systems/conductor/``. It registers its ``System`` with ``tabletop.systems``
(imported once Django's apps are ready: settings.TABLETOP_SYSTEMS).
"""

from rules import conductor as rules_module
from tabletop import systems
from tabletop.systems.conductor import (
    bennies,
    demo,
    events,
    expedition,
    panels,
    rolls,
    settings,
    sheet,
    strike_back,
)

SYSTEM = systems.register(
    systems.System(
        slug="conductor",
        label="Conductor (d12 + skill, bennies, wilderness)",
        rules=rules_module,
        roll_kinds=tuple(rolls.KINDS),
        panels=(panels.PANEL,),
        commands=(*bennies.COMMANDS, *strike_back.COMMANDS, *expedition.COMMANDS),
        event_kinds=events.EVENT_KINDS,
        card_controls=bennies.card_controls,
        extra={"dashboard": strike_back.dashboard},
        sheet=sheet.sheet,
        settings_form=settings.ConductorSettingsForm,
        demo=demo.demo,
    )
)
