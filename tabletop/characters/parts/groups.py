"""Parts that are a group of fixed fields on the sheet form: ``NamedNumbers``, ``Pools``,
``Numbers`` (of ``Number``) and ``OneOf``."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from tabletop.characters.parts.base import Part, Section, Stat, canonical, int_field, int_in

# --- groups of fixed fields -----------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class NamedNumbers(Part):
    """A number for each name the ruleset gives, kept as {name: number} in one field."""

    key: str = ""
    names: tuple[str, ...] = ()
    range: tuple[int, int] = (0, 20)
    #: what one of them is called in a message ("Attribute: Might must be...")
    what: str = ""
    #: the form fields' name prefix (``<prefix>_<index>``)
    prefix: str = ""
    #: name -> what it is linked to, shown as a note ("Linked to Black")
    links: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    #: how the sheet page writes a value ("+{}"); blank: as it is
    shown: str = ""
    note: str = ""

    @property
    def used(self) -> bool:
        return bool(self.names)

    def blank(self) -> dict[str, Any]:
        return {self.key: dict.fromkeys(self.names, 0)}

    def clean(self, key: str, raw: Any) -> dict[str, int]:
        """{name: int} for exactly the given names (missing ones count as 0)."""
        if not isinstance(raw, Mapping):
            raise ValidationError(f"{self.what} must map each name to a number.")
        out = dict.fromkeys(self.names, 0)
        for name, value in raw.items():
            name = canonical(name, self.names, self.what.lower())
            out[name] = int_in(value, *self.range, f"{self.what}: {name}")
        return out

    def section(self, character: Any) -> Section:
        held = getattr(character, self.key) or {}
        links = {name.casefold(): linked for name, linked in self.links.items()}
        stats = []
        for name in self.names:
            value = held.get(name, 0)
            linked = links.get(name.casefold(), ())
            note = f"Linked to {', '.join(linked)}" if linked else self.note
            stats.append(Stat(name, self.shown.format(value) if self.shown else value, note))
        return Section(self.title, tuple(stats))

    def form_fields(self) -> list[tuple[str, forms.Field]]:
        return [
            (f"{self.prefix}_{index}", int_field(name, *self.range, initial=0))
            for index, name in enumerate(self.names)
        ]

    def initial(self, character: Any) -> dict[str, Any]:
        held = getattr(character, self.key) or {}
        return {f"{self.prefix}_{i}": held.get(name, 0) for i, name in enumerate(self.names)}

    def read(self, data: Mapping[str, Any]) -> dict[str, Any]:
        return {self.key: {name: data[f"{self.prefix}_{i}"] for i, name in enumerate(self.names)}}


@dataclasses.dataclass(frozen=True)
class Pools(Part):
    """A current and a max for each name, kept as {name: {"current", "max"}} in one field."""

    key: str = ""
    #: name -> what it pays for ("Pays for Might and Agility")
    names: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    range: tuple[int, int] = (0, 99)
    what: str = ""
    prefix: str = ""

    @property
    def used(self) -> bool:
        return bool(self.names)

    def blank(self) -> dict[str, Any]:
        return {self.key: {name: {"current": 0, "max": 0} for name in self.names}}

    def clean(self, key: str, raw: Any) -> dict[str, dict[str, int]]:
        if not isinstance(raw, Mapping):
            raise ValidationError(f"{self.title} must map each {self.what} to its current and max.")
        out = {name: {"current": 0, "max": 0} for name in self.names}
        for given, value in raw.items():
            name = canonical(given, self.names, self.what)
            if not isinstance(value, Mapping):
                raise ValidationError(f"{name} needs a current and a max value.")
            current = int_in(value.get("current", 0), *self.range, f"{name} (current)")
            maximum = int_in(value.get("max", 0), *self.range, f"{name} (max)")
            if current > maximum:
                raise ValidationError(
                    f"{name}: current ({current}) can't be above max ({maximum})."
                )
            out[name] = {"current": current, "max": maximum}
        return out

    def section(self, character: Any) -> Section:
        held = getattr(character, self.key) or {}
        stats = []
        for name, linked in self.names.items():
            value = held.get(name, {})
            stats.append(
                Stat(
                    name,
                    f"{value.get('current', 0)} / {value.get('max', 0)}",
                    f"Pays for {' and '.join(linked)}",
                )
            )
        return Section(self.title, tuple(stats))

    def form_fields(self) -> list[tuple[str, forms.Field]]:
        fields = []
        for index, name in enumerate(self.names):
            fields.append((f"{self.prefix}_{index}_current", int_field(f"{name} now", *self.range)))
            fields.append((f"{self.prefix}_{index}_max", int_field(f"{name} max", *self.range)))
        return fields

    def initial(self, character: Any) -> dict[str, Any]:
        held = getattr(character, self.key) or {}
        initial = {}
        for index, name in enumerate(self.names):
            value = held.get(name, {})
            initial[f"{self.prefix}_{index}_current"] = value.get("current", 0)
            initial[f"{self.prefix}_{index}_max"] = value.get("max", 0)
        return initial

    def read(self, data: Mapping[str, Any]) -> dict[str, Any]:
        return {
            self.key: {
                name: {
                    "current": data[f"{self.prefix}_{i}_current"],
                    "max": data[f"{self.prefix}_{i}_max"],
                }
                for i, name in enumerate(self.names)
            }
        }

    def check(self, form: forms.Form, data: Mapping[str, Any]) -> None:
        for index, name in enumerate(self.names):
            current = data.get(f"{self.prefix}_{index}_current")
            maximum = data.get(f"{self.prefix}_{index}_max")
            if current is not None and maximum is not None and current > maximum:
                form.add_error(
                    f"{self.prefix}_{index}_current", f"{name} can't be above its max ({maximum})."
                )


@dataclasses.dataclass(frozen=True)
class Number:
    """One whole-number field of the sheet model."""

    key: str
    label: str
    range: tuple[int, int]
    #: a new character's value (None: the model's default)
    default: int | None = None
    help: str = ""
    #: the note beside it on the sheet page
    note: str = ""
    #: whether the sheet page shows it in this part's card (another part may show it)
    shown: bool = True


@dataclasses.dataclass(frozen=True)
class Numbers(Part):
    """Whole numbers, each a field of its own (the form field is named as the model's)."""

    numbers: tuple[Number, ...] = ()

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(number.key for number in self.numbers)

    def _number(self, key: str) -> Number:
        return next(number for number in self.numbers if number.key == key)

    def blank(self) -> dict[str, Any]:
        return {n.key: n.default for n in self.numbers if n.default is not None}

    def clean(self, key: str, raw: Any) -> int:
        number = self._number(key)
        return int_in(raw, *number.range, number.label)

    def section(self, character: Any) -> Section:
        return Section(
            self.title,
            tuple(
                Stat(n.label, getattr(character, n.key), n.note) for n in self.numbers if n.shown
            ),
        )

    def form_fields(self) -> list[tuple[str, forms.Field]]:
        return [
            (
                n.key,
                int_field(
                    n.label,
                    *n.range,
                    initial=n.default if n.default is not None else 0,
                    help_text=n.help,
                ),
            )
            for n in self.numbers
        ]

    def initial(self, character: Any) -> dict[str, Any]:
        return {n.key: getattr(character, n.key) for n in self.numbers}

    def read(self, data: Mapping[str, Any]) -> dict[str, Any]:
        return {n.key: data[n.key] for n in self.numbers}


@dataclasses.dataclass(frozen=True)
class OneOf(Part):
    """One of a few named options, kept as its value in one field."""

    key: str = ""
    label: str = ""
    #: (value, label) pairs, as a model field's ``choices``
    options: tuple[tuple[str, str], ...] = ()
    default: str | None = None
    note: str = ""

    def _labels(self) -> dict[str, str]:
        return dict(self.options)

    def blank(self) -> dict[str, Any]:
        return {self.key: self.default} if self.default is not None else {}

    def clean(self, key: str, raw: Any) -> str:
        labels = self._labels()
        given = raw.strip().casefold() if isinstance(raw, str) else None
        for value, label in labels.items():
            if given in (value.casefold(), label.casefold()):
                return value
        raise ValidationError(
            f"Unknown {self.label.lower()} {raw!r}; choose one of: {', '.join(labels.values())}."
        )

    def section(self, character: Any) -> Section:
        value = getattr(character, self.key)
        return Section(self.title, (Stat(self.label, self._labels().get(value, value), self.note),))

    def form_fields(self) -> list[tuple[str, forms.Field]]:
        return [
            (
                self.key,
                forms.ChoiceField(
                    label=self.label, choices=list(self.options), initial=self.default
                ),
            )
        ]

    def initial(self, character: Any) -> dict[str, Any]:
        return {self.key: getattr(character, self.key)}

    def read(self, data: Mapping[str, Any]) -> dict[str, Any]:
        return {self.key: data[self.key]}
