"""annulus (seed 000): operation challenges, a chain of d12s to make differ by one.

Everything web-side of this one game system lives in this package and in
``templates/systems/annulus/``. It registers its ``System`` with ``tabletop.systems``
(imported once Django's apps are ready: settings.TABLETOP_SYSTEMS).
"""

from rules import annulus as rules_module
from tabletop import systems
from tabletop.systems.annulus import actions, demo, events, panels, rolls, settings, sheet

SYSTEM = systems.register(
    systems.System(
        slug="annulus",
        label="Annulus (operation challenges)",
        rules=rules_module,
        roll_kinds=tuple(rolls.KINDS),
        panels=(panels.PANEL,),
        commands=actions.COMMANDS,
        event_kinds=events.EVENT_KINDS,
        sheet=sheet.sheet,
        settings_form=settings.AnnulusSettingsForm,
        demo=demo.demo,
    )
)
