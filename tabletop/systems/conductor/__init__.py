"""conductor (seed 002): d12 + skill, exploding d6 attacks, bennies, wilderness travel.

Everything web-side of this one game system lives in this package and in
``templates/systems/conductor/``; it registers its ``System`` with ``tabletop.systems``.
"""

from rules import conductor as rules_module
from tabletop import systems
from tabletop.systems.conductor import demo, rolls, sheet

SYSTEM = systems.register(
    systems.System(
        slug="conductor",
        label="Conductor (d12 + skill, bennies, wilderness)",
        rules=rules_module,
        roll_kinds=tuple(rolls.KINDS),
        sheet=sheet.sheet,
        demo=demo.demo,
    )
)
