"""percentile (seed 004): open-ended d100 on Chart 14.1, maneuvers, plot points.

Everything web-side of this one game system lives in this package and in
``templates/systems/percentile/``; it registers its ``System`` with ``tabletop.systems``.
"""

from rules import percentile as rules_module
from tabletop import systems
from tabletop.systems.percentile import demo, rolls, sheet

SYSTEM = systems.register(
    systems.System(
        slug="percentile",
        label="Percentile (open-ended d100, plot points)",
        rules=rules_module,
        roll_kinds=tuple(rolls.KINDS),
        sheet=sheet.sheet,
        demo=demo.demo,
    )
)
