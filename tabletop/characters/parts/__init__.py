"""The parts a system builds its sheet from: each owns some of the sheet model's fields and says
how to check them, start them, show them and edit them.

A system's ``sheet(ruleset)`` returns a ``SheetSpec`` listing its parts, each naming the fields
of its sheet model it keeps (``key``), so generic code (``sheets``, ``forms``, the sheet page)
loops over parts and names no system's field. Two shapes of part:

- a **group** of fixed fields on the sheet form (``NamedNumbers``, ``Pools``, ``Numbers``,
  ``OneOf``): ``form_fields``, ``initial`` and ``read``;
- a **list** of rows edited as a small formset (``SkillList``, ``FreeStats``, ``TaggedNames``):
  ``row_form``, ``row_initial``, ``read_rows``.
"""

from tabletop.characters.parts.base import (
    NAME_MAX,
    Part,
    Section,
    Stat,
    display_skill,
)
from tabletop.characters.parts.groups import NamedNumbers, Number, Numbers, OneOf, Pools
from tabletop.characters.parts.lists import (
    EXTRA_ROWS,
    FreeStats,
    RowFormSet,
    RowsPart,
    SkillList,
    TaggedNames,
    skill_key,
)

__all__ = [
    "EXTRA_ROWS",
    "NAME_MAX",
    "FreeStats",
    "NamedNumbers",
    "Number",
    "Numbers",
    "OneOf",
    "Part",
    "Pools",
    "RowFormSet",
    "RowsPart",
    "Section",
    "SkillList",
    "Stat",
    "TaggedNames",
    "display_skill",
    "skill_key",
]
