"""A generic editor for a campaign's ruleset, driven by the shape of the system's defaults.

Each rules module defines its own ``DEFAULT_RULESET``; this form does not know any system. For
every top-level field it picks an editor from the default value's shape (``ruleset_plans``):

- a number, a text or a yes/no          -> one input (a select when the value has few choices)
- a list of names                       -> a textarea, one name per line (tick boxes with choices)
- a list of numbers                     -> one input, comma-separated
- names mapped to numbers or texts      -> a table: one row per entry (remove / add a row)
- names mapped to lists of names        -> a table: one row per entry, names comma-separated
- a list of records (dicts of values)   -> a table: one row per record, one input per field
- names mapped to records (nested table)-> a table: one row per name, one input per field
- fixed fields (a dict of mixed values) -> one labelled input per field

A system refines this with ``Hint``s (labels in the game's words, bounds, choices, what a blank
means, which rows may go) by subclassing ``RulesetForm`` in ``tabletop/systems/<slug>/settings.py``;
``to_form`` / ``from_form`` adapt a value whose stored spelling suits no input (a [low, high]
pair becomes two numbers). A JSON textarea is the last resort, for a value no table of inputs
can hold: a stored override of another shape than the default (so the GM can still see and fix
it) or a default nested deeper than records in a table. No system's default needs it today.

``cleaned_ruleset`` is the full ruleset as submitted; the action validates it through the rules
module and decides what to store.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from django import forms
from django.forms.utils import ErrorDict

from tabletop.campaigns.ruleset_plans import plan_field
from tabletop.campaigns.ruleset_shapes import (
    BOOL,
    CHOICE,
    ENTRIES_MAX,
    FLOAT,
    GROUP,
    INT,
    JSON,
    LISTS,
    NAME_MAX,
    NAMES,
    NESTED,
    NO_HINT,
    NUMBERS,
    OMIT,
    RECORDS,
    REQUIRED,
    ROW_SHAPES,
    ROWS_ADDED,
    ROWS_ANY,
    ROWS_FIXED,
    ROWS_NULL,
    SCALAR,
    TABLE,
    TEXT,
    Cell,
    Column,
    Hint,
    Plan,
    Row,
    Section,
    blocks_of,
    help_text,
    human_label,
    input_field,
    number_text,
    section_holding,
    section_named,
    shape_of,
    shown,
    split_text,
)
from tabletop.words import a_word

__all__ = [
    "GROUP",
    "JSON",
    "LISTS",
    "NAMES",
    "NESTED",
    "NUMBERS",
    "RECORDS",
    "ROWS_ADDED",
    "ROWS_ANY",
    "ROWS_FIXED",
    "ROWS_NULL",
    "SCALAR",
    "TABLE",
    "Hint",
    "RulesetForm",
    "human_label",
    "section_holding",
    "section_named",
    "shape_of",
]


# --- the form ------------------------------------------------------------------------------------


#: At most this many blank rows per table (each "Add another" adds one).
MAX_NEW_ROWS = 20


class RulesetForm(forms.Form):
    """Every field of a system's ruleset; ``cleaned_ruleset`` holds the submitted ruleset."""

    #: A system's words and bounds for its fields (see ``Hint``), by ruleset key.
    hints: ClassVar[Mapping[str, Hint]] = {}

    def __init__(
        self,
        data: Any = None,
        *,
        defaults: dict[str, Any],
        current: dict[str, Any],
        changed: frozenset[str] | set[str] = frozenset(),
    ) -> None:
        super().__init__(data)
        self.cleaned_ruleset: dict[str, Any] = {}
        self._plans: dict[str, Plan] = {}
        for key, default in defaults.items():
            hint = self.hints.get(key, NO_HINT)
            shown_default = self.to_form(key, default)
            value = self.to_form(key, current.get(key, default))
            plan = plan_field(key, hint, shown_default, value)
            self._plans[key] = plan
            plan.extra = self._extra_rows(key)
            self._add_fields(plan, shown_default, value)
        self.sections = [self._section(plan, plan.key in changed) for plan in self._plans.values()]
        self.blocks = blocks_of(self.sections)
        if self.adding_row:
            # Only asked for one more blank row: show what was typed, judge nothing yet.
            self._errors = ErrorDict()
            self.cleaned_data = {}

    #: The submit button that asks for one more blank row in a table (its value: the field).
    ADD_ROW = "add_row"

    @property
    def adding_row(self) -> bool:
        """The GM asked for another blank row: re-show the form, save nothing."""
        return self.is_bound and self.data.get(self.ADD_ROW) in self._plans

    def _extra_rows(self, key: str) -> int:
        if not self.is_bound:
            return 1
        try:
            extra = int(self.data.get(f"{key}__extra", 1))
        except (TypeError, ValueError):
            extra = 1
        if self.data.get(self.ADD_ROW) == key:
            extra += 1
        return min(max(extra, 1), MAX_NEW_ROWS)

    # --- a system's adapters ------------------------------------------------------------------

    def to_form(self, key: str, value: Any) -> Any:
        """The value as the editor shows it (override to reshape a field for its inputs)."""
        return value

    def from_form(self, key: str, value: Any) -> Any:
        """The edited value as the rules read it (the inverse of ``to_form``)."""
        return value

    # --- building the inputs -------------------------------------------------------------------

    def _add_fields(self, plan: Plan, default: Any, value: Any) -> None:
        """The field's inputs and what they show first, named by key (and row and column)."""
        key, hint = plan.key, plan.hint
        label = hint.label or human_label(key)
        if plan.shape == SCALAR:
            column = plan.columns[0]
            self.fields[key] = input_field(column, where="", new=False)
            self.initial[key] = value
        elif plan.shape == NAMES and hint.choices is not None:
            self.fields[key] = forms.MultipleChoiceField(
                label=label,
                required=False,
                choices=list(hint.choices),
                widget=forms.CheckboxSelectMultiple,
                error_messages={"invalid_choice": f"{label}: %(value)s is not one of the choices."},
            )
            self.initial[key] = list(value)
        elif plan.shape == NAMES:
            rows = min(max(len(value) + 1, 3), 12)
            # The browser keeps to every line at its longest (with its line break); clean()
            # names the line too long or the lines too many.
            longest = ENTRIES_MAX * (NAME_MAX + 2)
            self.fields[key] = forms.CharField(
                label=label,
                required=False,
                widget=forms.Textarea(attrs={"rows": rows, "maxlength": longest}),
            )
            self.initial[key] = "\n".join(value)
        elif plan.shape == NUMBERS:
            column = Column(key, label, NUMBERS, hint, REQUIRED)
            self.fields[key] = input_field(column, where="", new=False)
            self.initial[key] = number_text(value)
        elif plan.shape in (TABLE, LISTS):
            self._add_table_rows(plan, value)
        elif plan.shape in (NESTED, RECORDS):
            self._add_record_rows(plan, value)
        elif plan.shape == GROUP:
            for column in plan.columns:
                name = f"{key}__{column.key}"
                self.fields[name] = input_field(column, where=label, new=False)
                self.fields[name].help_text = column.note  # the input's aria-describedby
                self.initial[name] = shown(column, value.get(column.key))
        else:
            self._add_json(key, label, value)

    def _add_table_rows(self, plan: Plan, value: Any) -> None:
        """A keyed table's one input a row (a remove box where it may go), then the blank rows."""
        key, column = plan.key, plan.columns[0]
        for index, name in enumerate(plan.row_keys):
            where = plan.row_labels[index]
            self.fields[f"{key}__{index}"] = input_field(column, where=where, new=False)
            self.initial[f"{key}__{index}"] = shown(column, value[name])
            self._add_remove(plan, index, where)
        if plan.addable:
            for prefix, where in self._new_rows(plan):
                self._add_new_name(plan, prefix, where)
                self.fields[f"{prefix}_value"] = input_field(column, where=where, new=True)

    def _add_record_rows(self, plan: Plan, value: Any) -> None:
        """A row of inputs per record (or per name), one per field, then the blank rows."""
        key = plan.key
        rows = list(value.values()) if plan.shape == NESTED else list(value)
        for index, row in enumerate(rows):
            where = plan.row_labels[index]
            for column in plan.columns:
                name = f"{key}__{index}__{column.key}"
                placeholder = plan.hint.placeholder
                self.fields[name] = input_field(
                    column,
                    where=where,
                    new=False,
                    placeholder=placeholder(plan.row_keys[index], column.key)
                    if placeholder and plan.row_keys
                    else "",
                )
                self.initial[name] = shown(column, row.get(column.key))
            self._add_remove(plan, index, where)
        if plan.addable:
            for prefix, where in self._new_rows(plan):
                if plan.shape == NESTED:
                    self._add_new_name(plan, prefix, where)
                for column in plan.columns:
                    self.fields[f"{prefix}__{column.key}"] = input_field(
                        column, where=where, new=True
                    )

    def _add_json(self, key: str, label: str, value: Any) -> None:
        """The last resort: the value whole as JSON, in a textarea sized to it."""
        text = json.dumps(value, indent=2, ensure_ascii=False)
        rows = min(max(text.count("\n") + 2, 4), 24)
        self.fields[key] = forms.CharField(
            label=label,
            required=False,
            widget=forms.Textarea(attrs={"rows": rows, "class": "json", "spellcheck": "false"}),
        )
        self.initial[key] = text

    def _add_remove(self, plan: Plan, index: int, where: str) -> None:
        if plan.removable[index]:
            self.fields[f"{plan.key}__{index}__remove"] = forms.BooleanField(
                label=f"Remove {where}", required=False
            )

    @staticmethod
    def _new_rows(plan: Plan) -> list[tuple[str, str]]:
        """(input name prefix, row label) of each blank row: "new", "New difficulty"; "new2"…"""
        noun = plan.hint.noun
        return [
            (
                f"{plan.key}__new" if j == 0 else f"{plan.key}__new{j + 1}",
                f"New {noun}" if j == 0 else f"New {noun} ({j + 1})",
            )
            for j in range(plan.extra)
        ]

    def _add_new_name(self, plan: Plan, prefix: str, where: str) -> None:
        name = f"{prefix}_name"
        key_label = plan.hint.key_label.lower()
        # "New difficulty", or "New modifier: condition" when the name column says more
        title = where if key_label == plan.hint.noun else f"{where}: {key_label}"
        if plan.hint.row_choices is not None:
            self.fields[name] = forms.ChoiceField(
                label=title,
                required=False,
                choices=[("", f"Choose {a_word(key_label)}…"), *plan.hint.row_choices],
                error_messages={"invalid_choice": f"{where}: %(value)s is not one of the choices."},
            )
        else:
            self.fields[name] = forms.CharField(
                label=title,
                required=False,
                max_length=NAME_MAX,
                error_messages={"max_length": f"{where}: at most %(limit_value)d characters."},
            )

    # --- what the template renders ---------------------------------------------------------------

    def _section(self, plan: Plan, changed: bool) -> Section:
        key, hint = plan.key, plan.hint
        section = Section(
            key=key,
            label=hint.label or human_label(key),
            shape=plan.shape,
            help=help_text(plan.shape, hint),
            changed=changed,
        )
        if plan.shape in ROW_SHAPES:
            section.keyed = plan.shape != RECORDS
            section.key_label = hint.key_label
            section.noun = hint.noun
            section.empty = hint.empty or "None yet."
            section.headings = [column.label for column in plan.columns]
            section.removable = any(plan.removable)
            section.notes = [
                f"{column.label}: {column.note}" for column in plan.columns if column.note
            ]
            single = plan.shape in (TABLE, LISTS)
            for index in range(plan.row_count):
                cells = [
                    Cell(
                        self[f"{key}__{index}" if single else f"{key}__{index}__{column.key}"],
                        column.label,
                        column.input_type,
                    )
                    for column in plan.columns
                ]
                remove = self._bound(f"{key}__{index}__remove")
                section.rows.append(Row(plan.row_labels[index], cells, remove))
            section.addable = plan.addable
            section.extra = plan.extra
            for j, (prefix, where) in enumerate(self._new_rows(plan) if plan.addable else []):
                cells = [
                    Cell(
                        self[f"{prefix}_value" if single else f"{prefix}__{column.key}"],
                        column.label,
                        column.input_type,
                    )
                    for column in plan.columns
                ]
                name = self._bound(f"{prefix}_name")
                if j == plan.extra - 1 and self.adding_row and self.data[self.ADD_ROW] == key:
                    # the row just asked for: the browser focuses it and brings it into view
                    first = name if name is not None else cells[0].field
                    first.field.widget.attrs["autofocus"] = True
                section.rows.append(Row(where, cells, name=name, is_new=True, first_new=j == 0))
        elif plan.shape == GROUP:
            section.group = [
                Cell(self[f"{key}__{column.key}"], column.label, column.input_type, column.note)
                for column in plan.columns
            ]
        else:
            section.field = self[key]
        return section

    def _bound(self, name: str) -> forms.BoundField | None:
        return self[name] if name in self.fields else None

    # --- reading ----------------------------------------------------------------------------

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        ruleset: dict[str, Any] = {}
        for key, plan in self._plans.items():
            value = self._clean_field(plan, cleaned)
            if value is not _Missing:
                ruleset[key] = self.from_form(key, value)
        self.cleaned_ruleset = ruleset
        return cleaned

    def _clean_field(self, plan: Plan, cleaned: dict[str, Any]) -> Any:
        key = plan.key
        if plan.shape == SCALAR:
            if key not in cleaned:
                return _Missing  # the field's own error is shown
            value = self._read(plan.columns[0], key, cleaned)
            return _Missing if value is _Missing else value
        if plan.shape == NAMES and plan.hint.choices is not None:
            ticked = list(cleaned.get(key) or [])
            kept = [name for name in plan.current if name in ticked]
            return kept + [name for name in ticked if name not in kept]
        if plan.shape == NAMES:
            names = split_text(cleaned.get(key) or "", "\n")
            label = plan.hint.label or human_label(key)
            return names if self._names_fit(key, label, names, "lines") else _Missing
        if plan.shape == NUMBERS:
            column = Column(key, plan.hint.label or human_label(key), NUMBERS, plan.hint, REQUIRED)
            return self._read(column, key, cleaned)
        if plan.shape in (TABLE, LISTS, NESTED):
            return self._clean_keyed(plan, cleaned)
        if plan.shape == RECORDS:
            return self._clean_records(plan, cleaned)
        if plan.shape == GROUP:
            return self._clean_row(plan, key)
        text = cleaned.get(key) or ""
        try:
            return json.loads(text)
        except json.JSONDecodeError as error:
            self.add_error(
                key,
                f"This is not valid JSON: {error.msg} "
                f"(line {error.lineno}, column {error.colno}). Nothing was saved.",
            )
            return _Missing

    def _read(self, column: Column, name: str, cleaned: dict[str, Any]) -> Any:
        """One input's value as the rules read it; OMIT, or _Missing after adding an error."""
        if name in self.errors:
            return _Missing
        raw = cleaned.get(name)
        named = self.fields[name].named  # type: ignore[attr-defined]
        if column.input_type == BOOL:
            return bool(raw)
        if column.input_type in (INT, FLOAT) and raw is not None:
            return raw
        text = raw.strip() if isinstance(raw, str) else raw
        if text in (None, ""):
            if column.blank is REQUIRED:
                what = "a number" if column.input_type in (INT, FLOAT, NUMBERS) else "a value"
                if column.input_type == CHOICE:
                    what = "one of the choices"
                self.add_error(name, f"{named}: give {what}.")
                return _Missing
            if column.input_type == NAMES and column.blank == "":
                return []
            return column.blank  # OMIT, None or ""
        if column.input_type in (TEXT, CHOICE):
            return text
        if column.input_type == NAMES:
            names = split_text(text, ",")
            return names if self._names_fit(name, named, names, "names") else _Missing
        if column.input_type == NUMBERS:
            numbers = []
            for item in split_text(text, ","):
                try:
                    number = int(item)
                except ValueError:
                    self.add_error(name, f"{named}: “{item}” is not a whole number.")
                    return _Missing
                hint = column.hint
                if hint.min is not None and number < hint.min:
                    self.add_error(name, f"{named}: {number} is below {hint.min}.")
                    return _Missing
                if hint.max is not None and number > hint.max:
                    self.add_error(name, f"{named}: {number} is above {hint.max}.")
                    return _Missing
                numbers.append(number)
            return numbers
        parse = column.hint.parse
        assert parse is not None
        try:
            return parse(text)
        except ValueError as error:
            self.add_error(name, f"{named}: {error}")
            return _Missing

    def _names_fit(self, name: str, named: str, names: list[str], what: str) -> bool:
        """Each name at most NAME_MAX characters, at most ENTRIES_MAX of them (else an error)."""
        if len(names) > ENTRIES_MAX:
            self.add_error(name, f"{named}: at most {ENTRIES_MAX} {what}, not {len(names)}.")
            return False
        for item in names:
            if len(item) > NAME_MAX:
                shown = item if len(item) <= 24 else item[:24] + "…"
                self.add_error(
                    name,
                    f"{named}: “{shown}” is {len(item)} characters long; "
                    f"a name may have at most {NAME_MAX}.",
                )
                return False
        return True

    def _rows_fit(self, plan: Plan, count: int) -> bool:
        """At most ENTRIES_MAX rows in a table (an error at the row that adds one)."""
        if count <= ENTRIES_MAX:
            return True
        label = plan.hint.label or human_label(plan.key)
        message = f"{label}: at most {ENTRIES_MAX} rows, not {count}; remove some first."
        first_new = next(iter(self._new_rows(plan)), None) if plan.addable else None
        if first_new is None:
            self.add_error(None, message)
        else:
            prefix = first_new[0]
            single = plan.shape in (TABLE, LISTS)
            name = f"{prefix}_name" if plan.shape != RECORDS else f"{prefix}__"
            if plan.shape == RECORDS:
                name += plan.columns[0].key
            elif f"{prefix}_name" not in self.fields:
                name = f"{prefix}_value" if single else f"{prefix}__{plan.columns[0].key}"
            self.add_error(name, message)
        return False

    def _row_is_blank(self, names: Iterable[str]) -> bool:
        for name in names:
            raw = self.data.get(self.add_prefix(name)) if self.is_bound else None
            if raw not in (None, "", "off", "false", "False"):
                return False
        return True

    def _clean_row(self, plan: Plan, prefix: str) -> dict[str, Any] | Any:
        row: dict[str, Any] = {}
        failed = False
        for column in plan.columns:
            value = self._read(column, f"{prefix}__{column.key}", self.cleaned_data)
            if value is _Missing:
                failed = True
            elif value is not OMIT:
                row[column.key] = value
        return _Missing if failed else row

    def _clean_keyed(self, plan: Plan, cleaned: dict[str, Any]) -> Any:
        key, hint = plan.key, plan.hint
        single = plan.shape in (TABLE, LISTS)
        entries: dict[str, Any] = {}
        failed = False
        for index, name in enumerate(plan.row_keys):
            if cleaned.get(f"{key}__{index}__remove"):
                continue
            if single:
                value = self._read(plan.columns[0], f"{key}__{index}", cleaned)
            else:
                value = self._clean_row(plan, f"{key}__{index}")
            if value is _Missing:
                failed = True
                continue
            if value is OMIT or (hint.drop_blank_rows and value == {}):
                continue
            entries[name] = value
        for prefix, where in self._new_rows(plan) if plan.addable else []:
            if not self._clean_new_keyed(plan, prefix, where, entries, cleaned):
                failed = True
        if failed or not self._rows_fit(plan, len(entries)):
            return _Missing
        if hint.rows == ROWS_NULL:
            # The rules keep every default entry unless it is given as None.
            kept = {name.casefold() for name in entries}
            for name in plan.default_keys:
                if name.casefold() not in kept:
                    entries[name] = None
        return entries

    def _clean_new_keyed(
        self, plan: Plan, prefix: str, where: str, entries: dict[str, Any], cleaned: dict[str, Any]
    ) -> bool:
        """Read one blank row of a keyed table into ``entries``; False after adding an error."""
        hint, single = plan.hint, plan.shape in (TABLE, LISTS)
        inputs = [f"{prefix}_value"] if single else [f"{prefix}__{c.key}" for c in plan.columns]
        new_name = (cleaned.get(f"{prefix}_name") or "").strip()
        if not new_name:
            if self._row_is_blank(inputs):
                return True
            self.add_error(f"{prefix}_name", f"{where}: give it a name.")
            return False
        if new_name.casefold() in {name.casefold() for name in entries}:
            self.add_error(
                f"{prefix}_name", f"{where}: {new_name!r} is already a row; change it there."
            )
            return False
        if new_name.casefold() in {name.casefold() for name in hint.reserved}:
            self.add_error(
                f"{prefix}_name", f"{where}: {new_name!r} {hint.reserved_reason or 'is taken'}."
            )
            return False
        if single:
            value = self._read(plan.columns[0], f"{prefix}_value", cleaned)
        else:
            value = self._clean_row(plan, prefix)
        if value is _Missing:
            return False
        if value is not OMIT and not (hint.drop_blank_rows and value == {}):
            entries[new_name] = value
        return True

    def _clean_records(self, plan: Plan, cleaned: dict[str, Any]) -> Any:
        key = plan.key
        records: list[dict[str, Any]] = []
        failed = False
        for index in range(plan.row_count):
            if cleaned.get(f"{key}__{index}__remove"):
                continue
            row = self._clean_row(plan, f"{key}__{index}")
            if row is _Missing:
                failed = True
            else:
                records.append(row)
        for prefix, _ in self._new_rows(plan) if plan.addable else []:
            if not self._row_is_blank([f"{prefix}__{column.key}" for column in plan.columns]):
                row = self._clean_row(plan, prefix)
                if row is _Missing:
                    failed = True
                else:
                    records.append(row)
        if failed or not self._rows_fit(plan, len(records)):
            return _Missing
        return records

    # --- the rules' verdict ------------------------------------------------------------------

    def add_ruleset_error(self, message: str) -> None:
        """Show a rules error next to the fieldset its message names, or at the top.

        A message that names no field goes to the field a hint gives its words to, or
        ("Unknown attribute 'Brawn'") to the one field whose submitted value holds the quoted
        name, when exactly one does.
        """
        aliases = {key: plan.hint.aliases for key, plan in self._plans.items()}
        key = section_named(message, list(self._plans), aliases) or section_holding(
            message, self.cleaned_ruleset
        )
        message = self.in_form_words(message)
        section = next((s for s in self.sections if s.key == key), None)
        if section is None:
            self.add_error(None, message)
        else:
            section.errors.append(message)

    def in_form_words(self, message: str) -> str:
        """A rules message with the fields named as the form names them.

        The rules name a field by its key ("ruleset.attributes", "Ruleset field 'colours'",
        "ruleset.wilderness.supply_dice"); the GM reads the labels ("Attributes", "Wilderness ·
        Supply dice, largest first").
        """

        def label_of(key: str) -> str:
            plan = self._plans[key]
            return plan.hint.label or human_label(key)

        def path(key: str, rest: str) -> tuple[str, str]:
            """The field's label, then each column or row the dotted name steps into; and the
            text after it."""
            plan = self._plans[key]
            words = [label_of(key)]
            columns = {column.key: column.label for column in plan.columns}
            entries = self.cleaned_ruleset.get(key)
            rows = sorted(
                [*plan.row_keys, *(entries if isinstance(entries, Mapping) else ())],
                key=len,
                reverse=True,
            )
            while rest.startswith("."):
                step = next(
                    (c for c in columns if re.match(rf"{re.escape(c)}(?!\w)", rest[1:])), None
                ) or next((r for r in rows if rest[1:].startswith(r)), None)
                if step is None:
                    break
                words.append(columns.get(step) or plan.hint.row_labels.get(step, step))
                rest = rest[1 + len(step) :]
            return " · ".join(words), rest

        keys = "|".join(re.escape(key) for key in sorted(self._plans, key=len, reverse=True))
        if not keys:
            return message
        text = message
        found = re.search(rf"\bruleset\.({keys})\b", text)
        while found:
            named, rest = path(found.group(1), text[found.end() :])
            text = text[: found.start()] + named + rest
            found = re.search(rf"\bruleset\.({keys})\b", text)
        text = re.sub(
            rf"(?:\b[Rr]uleset field |\b[Tt]he ruleset's |\bfield )['\"]({keys})['\"]",
            lambda found: label_of(found.group(1)),
            text,
        )
        text = re.sub(r"^[Rr]uleset:\s*", "", text)
        return text[:1].upper() + text[1:]

    @property
    def has_section_errors(self) -> bool:
        return any(section.errors for section in self.sections)

    @property
    def error_summary(self) -> list[tuple[str, str]]:
        """(the id to jump to, message) for every error, in page order, for the summary."""
        order = {name: index for index, name in enumerate(self.fields)}
        fields = sorted((name for name in self.errors if name in order), key=order.__getitem__)
        summary = [(self[name].id_for_label, str(e)) for name in fields for e in self.errors[name]]
        summary += [(s.html_id, message) for s in self.sections for message in s.errors]
        return summary


class _MissingType:
    """A value that could not be read (its input carries the error)."""


_Missing: Any = _MissingType()
