"""A generic editor for a campaign's ruleset, driven by the shape of the system's defaults.

Each rules module defines its own ``DEFAULT_RULESET``; this form does not know any system. For
every top-level field it picks an editor from the default value's shape:

- a number or a text               -> one input
- a list of names                  -> a textarea, one name per line
- names mapped to numbers or texts -> one labelled input per entry (remove / add an entry)
- names mapped to lists of names   -> one input per entry, comma-separated (remove / add)
- anything else (list of records, nested tables) -> a JSON textarea

``cleaned ruleset`` is the full ruleset as submitted; the action decides what to store.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass
from typing import Any

from django import forms

SCALAR = "scalar"
NAMES = "names"
TABLE = "table"
LISTS = "lists"
JSON = "json"

HELP = {
    SCALAR: "",
    NAMES: "One per line.",
    TABLE: "One value per entry. Tick “remove” to drop an entry; fill in the last row to add one.",
    LISTS: "Comma-separated names per entry. Tick “remove” to drop an entry; "
    "fill in the last row to add one.",
    JSON: "Edited as JSON (a list of records or a nested table).",
}


def _is_scalar(value: Any) -> bool:
    return isinstance(value, bool | int | float | str)


def _is_names(value: Any) -> bool:
    return isinstance(value, list | tuple) and all(isinstance(item, str) for item in value)


def shape_of(value: Any) -> str:
    """Which editor suits a ruleset field's value."""
    if _is_scalar(value):
        return SCALAR
    if _is_names(value):
        return NAMES
    if isinstance(value, dict) and value and all(isinstance(key, str) for key in value):
        entries = value.values()
        if all(isinstance(item, int | str) and not isinstance(item, bool) for item in entries):
            return TABLE
        if all(_is_names(item) for item in entries):
            return LISTS
    return JSON


def human_label(key: str) -> str:
    """``op_check_die`` -> ``Op check die``."""
    words = key.replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def _split_names(text: str, separator: str) -> list[str]:
    return [item.strip() for item in text.split(separator) if item.strip()]


@dataclass
class Entry:
    """One row of a table or lists editor: the entry's value input and its remove box."""

    name: str
    value: forms.BoundField
    remove: forms.BoundField


@dataclass
class Section:
    """One top-level ruleset field, rendered as a fieldset."""

    key: str
    label: str
    kind: str
    help: str
    changed: bool
    field: forms.BoundField | None = None  # scalar, names, json
    entries: list[Entry] = dataclasses.field(default_factory=list)
    new_name: forms.BoundField | None = None
    new_value: forms.BoundField | None = None
    errors: list[str] = dataclasses.field(default_factory=list)

    @property
    def html_id(self) -> str:
        return f"ruleset-{self.key}"


def _scalar_field(value: Any, label: str) -> forms.Field:
    if isinstance(value, bool):
        return forms.BooleanField(label=label, required=False)
    if isinstance(value, int):
        return forms.IntegerField(label=label)
    if isinstance(value, float):
        return forms.FloatField(label=label, widget=forms.NumberInput(attrs={"step": "any"}))
    return forms.CharField(label=label, required=False)


class RulesetForm(forms.Form):
    """Every field of a system's ruleset; ``cleaned_ruleset`` holds the submitted ruleset."""

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
        self._kinds: dict[str, str] = {}
        self._entry_names: dict[str, list[str]] = {}
        plan = []
        for key, default in defaults.items():
            value = current.get(key, default)
            kind = shape_of(default)
            if kind != JSON and shape_of(value) != kind:
                # The stored value no longer fits the default's shape: still editable, as JSON.
                kind = JSON
            if kind == SCALAR and type(value) is not type(default):
                kind = JSON
            self._kinds[key] = kind
            self._add_fields(key, kind, value)
            plan.append((key, kind))
        self.sections = [self._section(key, kind, key in changed) for key, kind in plan]

    # --- building -------------------------------------------------------------------------

    def _add_fields(self, key: str, kind: str, value: Any) -> None:
        label = human_label(key)
        if kind == SCALAR:
            self.fields[key] = _scalar_field(value, label)
            self.initial[key] = value
        elif kind == NAMES:
            rows = min(max(len(value) + 1, 3), 12)
            self.fields[key] = forms.CharField(
                label=label, required=False, widget=forms.Textarea(attrs={"rows": rows})
            )
            self.initial[key] = "\n".join(value)
        elif kind in (TABLE, LISTS):
            names = list(value)
            self._entry_names[key] = names
            for index, name in enumerate(names):
                entry = value[name]
                if kind == LISTS:
                    self.fields[f"{key}__{index}"] = forms.CharField(label=name, required=False)
                    self.initial[f"{key}__{index}"] = ", ".join(entry)
                else:
                    self.fields[f"{key}__{index}"] = _scalar_field(entry, name)
                    self.initial[f"{key}__{index}"] = entry
                self.fields[f"{key}__{index}__remove"] = forms.BooleanField(
                    label=f"Remove {name}", required=False
                )
            self.fields[f"{key}__new_name"] = forms.CharField(
                label=f"New entry in {label.lower()}", required=False
            )
            all_numbers = kind == TABLE and all(isinstance(v, int) for v in value.values())
            self.fields[f"{key}__new_value"] = (
                forms.IntegerField(label="Its value", required=False)
                if all_numbers
                else forms.CharField(
                    label="Its names (comma-separated)" if kind == LISTS else "Its value",
                    required=False,
                )
            )
        else:
            text = json.dumps(value, indent=2, ensure_ascii=False)
            rows = min(max(text.count("\n") + 2, 4), 24)
            self.fields[key] = forms.CharField(
                label=label,
                required=False,
                widget=forms.Textarea(attrs={"rows": rows, "class": "json", "spellcheck": "false"}),
            )
            self.initial[key] = text

    def _section(self, key: str, kind: str, changed: bool) -> Section:
        section = Section(
            key=key,
            label=human_label(key),
            kind=kind,
            help=HELP[kind],
            changed=changed,
        )
        if kind in (TABLE, LISTS):
            section.entries = [
                Entry(name=name, value=self[f"{key}__{i}"], remove=self[f"{key}__{i}__remove"])
                for i, name in enumerate(self._entry_names[key])
            ]
            section.new_name = self[f"{key}__new_name"]
            section.new_value = self[f"{key}__new_value"]
        else:
            section.field = self[key]
        return section

    # --- reading ----------------------------------------------------------------------------

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        ruleset: dict[str, Any] = {}
        for key, kind in self._kinds.items():
            if kind == SCALAR:
                if key in cleaned:
                    ruleset[key] = cleaned[key]
            elif kind == NAMES:
                ruleset[key] = _split_names(cleaned.get(key) or "", "\n")
            elif kind == JSON:
                text = cleaned.get(key) or ""
                try:
                    ruleset[key] = json.loads(text)
                except json.JSONDecodeError as error:
                    self.add_error(
                        key,
                        f"This is not valid JSON: {error.msg} "
                        f"(line {error.lineno}, column {error.colno}). Nothing was saved.",
                    )
            else:
                ruleset[key] = self._clean_entries(key, kind, cleaned)
        self.cleaned_ruleset = ruleset
        return cleaned

    def _clean_entries(self, key: str, kind: str, cleaned: dict[str, Any]) -> dict[str, Any]:
        entries: dict[str, Any] = {}
        for index, name in enumerate(self._entry_names[key]):
            if cleaned.get(f"{key}__{index}__remove"):
                continue
            value = cleaned.get(f"{key}__{index}")
            entries[name] = _split_names(value or "", ",") if kind == LISTS else value
        new_name = (cleaned.get(f"{key}__new_name") or "").strip()
        new_value = cleaned.get(f"{key}__new_value")
        if new_name:
            if new_name.casefold() in {name.casefold() for name in entries}:
                self.add_error(f"{key}__new_name", f"{new_name!r} is already an entry.")
            elif new_value in (None, "") and kind == TABLE:
                self.add_error(f"{key}__new_value", f"Give {new_name!r} a value.")
            else:
                entries[new_name] = (
                    _split_names(new_value or "", ",") if kind == LISTS else new_value
                )
        elif new_value not in (None, ""):
            self.add_error(f"{key}__new_name", "Name the new entry.")
        return entries

    # --- the rules' verdict ------------------------------------------------------------------

    def add_ruleset_error(self, message: str) -> None:
        """Show a rules error next to the fieldset its message names, or at the top.

        A message that names no field ("Unknown attribute 'Brawn'") goes to the one field
        whose submitted value holds the quoted name, when exactly one does.
        """
        key = section_named(message, list(self._kinds)) or section_holding(
            message, self.cleaned_ruleset
        )
        section = next((s for s in self.sections if s.key == key), None)
        if section is None:
            self.add_error(None, message)
        else:
            section.errors.append(message)

    @property
    def has_section_errors(self) -> bool:
        return any(section.errors for section in self.sections)


def section_named(message: str, keys: list[str]) -> str | None:
    """The ruleset field a rules error names.

    Rules modules name fields as 'links', ruleset.resources.Health or "field links"; a quoted or
    dotted name counts first, a bare word after; among several, the earliest in the message.
    """
    text = message.casefold()
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
