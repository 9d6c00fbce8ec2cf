"""annulus (seed 000): operation challenges, a chain of d12s to make differ by one.

Everything web-side of this one game system lives in this package and in
``templates/systems/annulus/``; it registers its ``System`` with ``tabletop.systems``.
"""

from rules import annulus as rules_module
from tabletop import systems
from tabletop.systems.annulus import demo, rolls, sheet

SYSTEM = systems.register(
    systems.System(
        slug="annulus",
        label="Annulus (operation challenges)",
        rules=rules_module,
        roll_kinds=tuple(rolls.KINDS),
        sheet=sheet.sheet,
        demo=demo.demo,
    )
)
