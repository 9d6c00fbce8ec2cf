"""The shapes a ruleset field can take, the hints a system gives about them, and what the
settings template renders (``Section`` / ``Row`` / ``Cell``). The form reading and writing them
is ``tabletop.campaigns.ruleset_forms``.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django import forms

from tabletop.words import a_word

# --- shapes of a ruleset field ----------------------------------------------------------------

SCALAR = "scalar"
NAMES = "names"
NUMBERS = "numbers"
TABLE = "table"
LISTS = "lists"
RECORDS = "records"
NESTED = "nested"
GROUP = "group"
JSON = "json"

#: Shapes edited as a table of rows.
ROW_SHAPES = (TABLE, LISTS, RECORDS, NESTED)

# --- how much a GM may type ---------------------------------------------------------------------

#: One name: a line of a list, a row's name, one of a cell's comma-separated names. A name
#: becomes a label, a choice or a heading on every sheet form, so it stays short.
NAME_MAX = 60
#: Entries in one list or table (lines of a list, rows of a table, names in one cell).
ENTRIES_MAX = 50
#: One text cell (a description, a use's text).
TEXT_MAX = 500

# --- input types: how one value is typed (a cell of a table, a field of a group, a scalar) ------

INT = "int"
FLOAT = "float"
TEXT = "text"
BOOL = "bool"
CHOICE = "choice"
CUSTOM = "custom"
# NAMES and NUMBERS double as input types: comma-separated names / whole numbers.

# --- which rows a GM may remove ---------------------------------------------------------------

#: Any row may be removed and new ones added.
ROWS_ANY = "any"
#: The rows are the rules' own: each may be changed, none removed or added.
ROWS_FIXED = "fixed"
#: The default rows always come back (the rules merge the defaults under a campaign's rows):
#: only rows the GM added may be removed.
ROWS_ADDED = "added"
#: The rules merge entry by entry and drop an entry given as ``None``: a removed default row is
#: sent as ``None``.
ROWS_NULL = "null"


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


class _Omit:
    def __repr__(self) -> str:
        return "OMIT"


#: A blank input is an error.
REQUIRED: Any = _Required()
#: A blank input leaves the key out (the rules then use their own default).
OMIT: Any = _Omit()


@dataclass(frozen=True)
class Hint:
    """What a system says about one ruleset field, or one column / sub-field of it.

    Every attribute is optional; the generic editor guesses from the default value.
    """

    label: str | None = None
    help: str = ""
    #: Bounds of a number (and of each number in a list of numbers).
    min: int | None = None
    max: int | None = None
    #: (value, label) pairs: a select (a scalar, a cell) or tick boxes (a list of names).
    choices: Sequence[tuple[str, str]] | None = None
    #: The input may be left blank; the text says what a blank means ("the challenge's pool").
    blank: str | None = None
    #: A text the GM must fill in (a record's name).
    required: bool = False
    #: A cell whose value has its own spelling: ``parse(text) -> value`` (raise ``ValueError``
    #: with a message for the GM) and ``show(value) -> text``.
    parse: Callable[[str], Any] | None = None
    show: Callable[[Any], str] | None = None
    # -- a field edited as rows or as a group --
    #: Force a shape (an empty default says nothing about its rows).
    shape: str | None = None
    #: Hints per column (records, nested tables) or per sub-field (groups), in display order.
    columns: Mapping[str, Hint] = dataclasses.field(default_factory=dict)
    #: ROWS_ANY, ROWS_FIXED, ROWS_ADDED or ROWS_NULL.
    rows: str = ROWS_ANY
    #: What one row is, in the game's words ("ability", "difficulty").
    noun: str = "entry"
    #: The heading of a table's name column, and of a single-value table's value column.
    key_label: str = "Name"
    value_label: str | None = None
    #: Display names of row keys (a rules id such as "change_roll" → "Change a roll").
    row_labels: Mapping[str, str] = dataclasses.field(default_factory=dict)
    #: A new row's name is one of these (a select); grouped choices are allowed.
    row_choices: Sequence[Any] | None = None
    #: Names a new row may not take, and why (e.g. "is a row of the seed's table").
    reserved: Sequence[str] = ()
    reserved_reason: str = ""
    #: Words the rules' error messages use for this field when they do not name it.
    aliases: Sequence[str] = ()
    #: Rows left with every cell blank are dropped (a table of changes: nothing changed).
    drop_blank_rows: bool = False
    #: What an empty table says ("No changes: every condition uses the seed's numbers.").
    empty: str = ""
    #: ``placeholder(row_key, column) -> text`` shown in an empty cell (e.g. the seed's number).
    placeholder: Callable[[str, str], str] | None = None


NO_HINT = Hint()


# --- reading a value's shape ------------------------------------------------------------------


def is_scalar(value: Any) -> bool:
    return isinstance(value, bool | int | float | str)


def is_names(value: Any) -> bool:
    return isinstance(value, list | tuple) and all(isinstance(item, str) for item in value)


def is_numbers(value: Any) -> bool:
    return (
        isinstance(value, list | tuple)
        and bool(value)
        and all(isinstance(item, int) and not isinstance(item, bool) for item in value)
    )


def is_cell(value: Any) -> bool:
    return value is None or is_scalar(value) or is_names(value) or is_numbers(value)


def is_record(value: Any) -> bool:
    return (
        isinstance(value, Mapping)
        and all(isinstance(key, str) for key in value)
        and all(is_cell(item) for item in value.values())
    )


def shape_of(value: Any) -> str:
    """Which editor suits a ruleset field's value."""
    if is_scalar(value):
        return SCALAR
    if is_names(value):
        return NAMES
    if is_numbers(value):
        return NUMBERS
    if isinstance(value, list | tuple) and all(is_record(item) for item in value):
        return RECORDS
    if isinstance(value, Mapping) and value and all(isinstance(key, str) for key in value):
        entries = list(value.values())
        if all(isinstance(item, int | str) and not isinstance(item, bool) for item in entries):
            return TABLE
        if all(is_names(item) for item in entries):
            return LISTS
        if all(is_record(item) for item in entries):
            return NESTED
        if all(is_cell(item) for item in entries):
            return GROUP
    return JSON


def fits(shape: str, value: Any) -> bool:
    """Whether a stored value has the container the default's shape asks for (each cell is
    checked against its column by ``cell_fits``)."""
    if shape == SCALAR:
        return is_scalar(value)
    if shape == NAMES:
        return is_names(value)
    if shape == NUMBERS:
        return is_numbers(value)
    if shape == RECORDS:
        return isinstance(value, list | tuple) and all(isinstance(i, Mapping) for i in value)
    if not isinstance(value, Mapping) or not all(isinstance(key, str) for key in value):
        return False
    entries = list(value.values())
    if shape == TABLE:
        return all(isinstance(i, int | str) and not isinstance(i, bool) for i in entries)
    if shape == LISTS:
        return all(is_names(item) for item in entries)
    if shape == NESTED:
        return all(isinstance(item, Mapping) for item in entries)
    return shape == GROUP


def cell_fits(column: Column, value: Any) -> bool:
    """Whether one stored value can be shown in its column's input."""
    input_type = column.input_type
    if value is None or input_type == CUSTOM:
        return True
    if input_type == CHOICE:
        return value in {choice for choice, _ in column.hint.choices or ()}
    if input_type == BOOL:
        return isinstance(value, bool)
    if input_type == INT:
        return isinstance(value, int) and not isinstance(value, bool)
    if input_type == FLOAT:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if input_type == TEXT:
        return isinstance(value, str)
    if input_type == NAMES:
        return is_names(value)
    return is_numbers(value)


def human_label(key: str) -> str:
    """``op_check_die`` -> ``Op check die``."""
    words = key.replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def split_text(text: str, separator: str) -> list[str]:
    return [item.strip() for item in text.split(separator) if item.strip()]


def input_type_of(values: Iterable[Any], hint: Hint) -> str | None:
    """The input type for a column holding ``values`` (None: no single input fits them)."""
    if hint.parse is not None:
        return CUSTOM
    if hint.choices is not None:
        return CHOICE
    present = [value for value in values if value is not None]
    if not present:
        # Only blanks (e.g. "dice": null, "the challenge's own pool"): a number by default.
        return INT
    if all(isinstance(value, bool) for value in present):
        return BOOL
    if all(isinstance(value, int) and not isinstance(value, bool) for value in present):
        return INT
    if all(isinstance(value, int | float) and not isinstance(value, bool) for value in present):
        return FLOAT
    if all(isinstance(value, str) for value in present):
        return TEXT
    if all(is_numbers(value) for value in present):
        return NUMBERS
    if all(is_names(value) for value in present):
        return NAMES
    return None


# --- the editor's model of a field ------------------------------------------------------------


@dataclass
class Column:
    """One input of every row (or one sub-field of a group): how it is read and shown."""

    key: str
    label: str
    input_type: str
    hint: Hint
    blank: Any  # REQUIRED, OMIT, None (the blank is stored as null) or "" (an empty text)

    @property
    def note(self) -> str:
        """A line for the GM under the table: what the column takes (its bounds too, shown
        before a save rather than after a refused one) and what a blank means."""
        blank = f"blank for {self.hint.blank}." if self.hint.blank else ""
        parts = [self.hint.help] if self.hint.help else []
        if self.bounds:
            parts.append(self.bounds)
        if blank:
            parts.append(f"Leave it {blank}" if parts else f"leave it {blank}")
        return " ".join(parts)

    @property
    def bounds(self) -> str:
        """The input's limits in words ("From 0 to 50."), or ''."""
        return bounds_text(self.input_type, self.hint)


def columns_for(
    rows: Sequence[Mapping[str, Any]], defaults: Sequence[Mapping[str, Any]], hint: Hint
) -> list[Column] | None:
    """The columns of a table of records: the hinted ones first, then every key in the rows."""
    keys: list[str] = list(hint.columns)
    for row in [*defaults, *rows]:
        keys.extend(key for key in row if key not in keys)
    columns = []
    for key in keys:
        column_hint = hint.columns.get(key, NO_HINT)
        input_type = input_type_of(
            [row[key] for row in [*defaults, *rows] if key in row], column_hint
        )
        if input_type is None:
            return None
        columns.append(
            Column(
                key=key,
                label=column_hint.label or human_label(key),
                input_type=input_type,
                hint=column_hint,
                blank=blank_for(key, input_type, defaults, column_hint),
            )
        )
    return columns


def bounds_text(input_type: str, hint: Hint) -> str:
    """What an input accepts, said beside it: "From 1 to 100.", "Each name up to 60
    characters."."""
    low, high = hint.min, hint.max
    if input_type in (INT, FLOAT, NUMBERS) and (low is not None or high is not None):
        each = "Each " if input_type == NUMBERS else ""
        if low is not None and high is not None:
            limits = f"from {low} to {high}"
        elif low is not None:
            limits = f"at least {low}"
        else:
            limits = f"at most {high}"
        return f"{each}{limits}." if each else f"{limits[:1].upper()}{limits[1:]}."
    if input_type == NAMES:
        return f"Each name up to {NAME_MAX} characters."
    return ""


def blank_for(key: str, input_type: str, defaults: Sequence[Mapping[str, Any]], hint: Hint) -> Any:
    """What a blank input means, from the default rows: null where a default is null, the key
    left out where some default row leaves it out (the rules then use their own value)."""
    if any(key in row and row[key] is None for row in defaults):
        return None
    if not defaults or any(key not in row for row in defaults) or hint.blank is not None:
        return OMIT
    if input_type in (TEXT, NAMES) and not hint.required:
        return ""  # an empty text, or no names
    return REQUIRED


# --- what the template renders -----------------------------------------------------------------


@dataclass
class Cell:
    """One input of a row, with its column's heading (its label on a phone)."""

    field: forms.BoundField
    column: str
    input_type: str
    help: str = ""

    @property
    def is_checkbox(self) -> bool:
        return self.input_type == BOOL


@dataclass
class Row:
    """One row of a table editor: its name, its inputs and its remove box."""

    label: str
    cells: list[Cell]
    remove: forms.BoundField | None = None
    name: forms.BoundField | None = None  # the new row's name input (a keyed table)
    is_new: bool = False
    first_new: bool = False


@dataclass
class Section:
    """One top-level ruleset field, rendered as a fieldset."""

    key: str
    label: str
    shape: str
    help: str
    changed: bool
    field: forms.BoundField | None = None  # scalar, names, numbers, json
    rows: list[Row] = dataclasses.field(default_factory=list)
    headings: list[str] = dataclasses.field(default_factory=list)
    keyed: bool = False
    key_label: str = ""
    noun: str = "entry"
    empty: str = ""
    removable: bool = False
    addable: bool = False
    extra: int = 0
    notes: list[str] = dataclasses.field(default_factory=list)
    group: list[Cell] = dataclasses.field(default_factory=list)
    errors: list[str] = dataclasses.field(default_factory=list)

    @property
    def html_id(self) -> str:
        return f"ruleset-{self.key}"

    @property
    def add_heading(self) -> str:
        """The heading over the blank rows: "Add an ability"."""
        return f"Add {a_word(self.noun)}"

    @property
    def is_rows(self) -> bool:
        return self.shape in ROW_SHAPES

    @property
    def is_group(self) -> bool:
        return self.shape == GROUP

    @property
    def has_entries(self) -> bool:
        return any(not row.is_new for row in self.rows)

    @property
    def colspan(self) -> int:
        return int(self.keyed) + len(self.headings) + int(self.removable)

    @property
    def stack(self) -> str:
        """When the table turns into one card per row: sooner the more columns it has."""
        count = len(self.headings)
        if count >= 6:
            return "stack-widest"
        return "stack-wide" if count >= 4 else "stack" if count >= 2 else "stack-narrow"


@dataclass
class Plan:
    """How one field is edited (kept between building the inputs and reading them back)."""

    key: str
    shape: str
    hint: Hint
    columns: list[Column] = dataclasses.field(default_factory=list)
    row_keys: list[str] = dataclasses.field(default_factory=list)  # keyed tables
    row_labels: list[str] = dataclasses.field(default_factory=list)
    row_count: int = 0
    removable: list[bool] = dataclasses.field(default_factory=list)
    default_keys: list[str] = dataclasses.field(default_factory=list)
    addable: bool = True
    extra: int = 1  # blank rows to add new ones (the GM asks for more with "Add another")
    current: Any = None  # names with choices: the order to keep


@dataclass
class Block:
    """Sections shown together: a run of one-input fields sits in a compact grid."""

    sections: list[Section]
    compact: bool


def blocks_of(sections: list[Section]) -> list[Block]:
    blocks: list[Block] = []
    for section in sections:
        compact = section.shape in (SCALAR, NUMBERS)
        if compact and blocks and blocks[-1].compact:
            blocks[-1].sections.append(section)
        else:
            blocks.append(Block([section], compact))
    return blocks


def number_text(value: Any) -> str:
    return ", ".join(str(item) for item in value)


def input_field(column: Column, *, where: str, new: bool, placeholder: str = "") -> forms.Field:
    """The form field of one input; its error messages name the row and the column."""
    hint = column.hint
    if where and column.label and where != column.label:
        named = f"{where} · {column.label}"
    else:
        named = column.label or where
    messages = {
        "invalid": f"{named}: enter a whole number.",
        "min_value": f"{named}: must be at least %(limit_value)s.",
        "max_value": f"{named}: must be at most %(limit_value)s.",
        "invalid_choice": f"{named}: %(value)s is not one of the choices.",
        "max_length": f"{named}: at most %(limit_value)d characters.",
    }
    attrs: dict[str, Any] = {}
    if placeholder:
        attrs["placeholder"] = placeholder
    if column.input_type in (INT, FLOAT):
        whole = column.input_type == INT
        if not whole:
            messages["invalid"] = f"{named}: enter a number."
        field: forms.Field = (forms.IntegerField if whole else forms.FloatField)(
            label=column.label,
            required=False,
            min_value=hint.min,
            max_value=hint.max,
            error_messages=messages,
            widget=forms.NumberInput(attrs={**attrs, "step": 1 if whole else "any"}),
        )
    elif column.input_type == BOOL:
        field = forms.BooleanField(label=column.label, required=False)
    elif column.input_type == CHOICE:
        choices = list(hint.choices or ())
        if column.blank is not REQUIRED:
            choices = [("", hint.blank or "—"), *choices]
        elif new:
            choices = [("", "Choose…"), *choices]
        field = forms.ChoiceField(
            label=column.label, required=False, choices=choices, error_messages=messages
        )
    else:  # TEXT, NAMES, NUMBERS, CUSTOM: read in clean()
        if column.input_type == NUMBERS:
            attrs.setdefault("inputmode", "numeric")
        # a list of names: ENTRIES_MAX names of NAME_MAX characters with their ", "
        longest = ENTRIES_MAX * (NAME_MAX + 2) if column.input_type == NAMES else TEXT_MAX
        field = forms.CharField(
            label=column.label,
            required=False,
            max_length=longest,
            error_messages=messages,
            widget=forms.TextInput(attrs=attrs),
        )
    field.named = named  # type: ignore[attr-defined]
    return field


def shown(column: Column, value: Any) -> Any:
    if value is None:
        return "" if column.input_type != BOOL else False
    if column.input_type == CUSTOM and column.hint.show is not None:
        return column.hint.show(value)
    if column.input_type == NAMES:
        return ", ".join(value)
    if column.input_type == NUMBERS:
        return number_text(value)
    return value


def help_text(shape: str, hint: Hint) -> str:
    """The help line under a field: the system's own words, then how the editor works."""
    noun = hint.noun
    parts = [hint.help] if hint.help else []
    if shape in ROW_SHAPES:
        if hint.rows == ROWS_FIXED:
            pass
        elif hint.rows == ROWS_ADDED:
            parts.append(
                f"Fill in the last row to add {a_word(noun)}; tick “Remove” to drop one you "
                f"added (the rules' own {noun}s always stay, but you can change them)."
            )
        else:
            parts.append(f"Tick “Remove” to drop {a_word(noun)}; fill in the last row to add one.")
        if hint.rows != ROWS_FIXED:
            parts.append(f"Up to {ENTRIES_MAX} rows; a name up to {NAME_MAX} characters.")
    elif shape == NAMES and hint.choices is None:
        parts.append(
            f"One per line, up to {ENTRIES_MAX} lines of at most {NAME_MAX} characters each."
        )
    elif shape == NUMBERS:
        parts.append("Whole numbers, separated by commas.")
        if bounds_text(NUMBERS, hint):
            parts.append(bounds_text(NUMBERS, hint))
    elif shape == SCALAR and bounds_text(INT, hint):
        parts.append(bounds_text(INT, hint))
    elif shape == JSON:
        parts.append(
            "The saved value no longer fits this system's editor, so it is shown as JSON: "
            "fix it here, or reset to the defaults."
        )
    return " ".join(parts)


def section_named(
    message: str, keys: list[str], aliases: Mapping[str, Sequence[str]] | None = None
) -> str | None:
    """The ruleset field a rules error names.

    Rules modules name fields as 'links', ruleset.resources.Health or "field links"; a quoted or
    dotted name counts first, a bare word after; among several, the earliest in the message.
    ``aliases`` maps a field to the other words its rules use for it ("changing a roll").
    """
    text = message.casefold()
    for key, words in (aliases or {}).items():
        if any(word.casefold() in text for word in words):
            return key
    for patterns in (
        [r"['\"]{}['\"]", r"\.{}\b"],
        [r"\b{}\b"],
    ):
        hits: list[tuple[int, str]] = []
        for key in keys:
            spellings = {key.casefold(), key.casefold().replace("_", " ")}
            for spelling in spellings:
                for pattern in patterns:
                    found = re.search(pattern.format(re.escape(spelling)), text)
                    if found:
                        hits.append((found.start(), key))
        if hits:
            return min(hits)[1]
    return None


def section_holding(message: str, ruleset: dict[str, Any]) -> str | None:
    """The one ruleset field whose value contains a name the message quotes, if exactly one."""
    quoted = {name.casefold() for name in re.findall(r"'([^']+)'", message)}
    holders = {
        key
        for key, value in ruleset.items()
        for name in quoted
        if json.dumps(name, ensure_ascii=False) in json.dumps(value, ensure_ascii=False).casefold()
    }
    return holders.pop() if len(holders) == 1 else None
