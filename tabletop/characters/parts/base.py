"""What every part of a sheet shares: the ``Part`` type, the sheet page's ``Section`` and
``Stat``, and the checks each part's values go through."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from django import forms
from django.core.exceptions import ValidationError

NAME_MAX = 60


# --- shared checks --------------------------------------------------------------------------------


def int_in(value: Any, low: int, high: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationError(f"{what} must be a whole number.")
    if not low <= value <= high:
        raise ValidationError(f"{what} must be between {low} and {high}.")
    return value


def canonical(name: Any, options: Iterable[str], what: str) -> str:
    """``name`` matched case-insensitively against ``options``, in the ruleset's spelling."""
    options = tuple(options)
    if isinstance(name, str):
        for option in options:
            if option.casefold() == name.strip().casefold():
                return option
    raise ValidationError(f"Unknown {what} {name!r}; choose one of: {', '.join(options)}.")


def text(value: Any, what: str, *, required: bool = True) -> str:
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise ValidationError(f"{what} must be text.")
    value = value.strip()
    if required and not value:
        raise ValidationError(f"{what} is required.")
    if len(value) > NAME_MAX:
        raise ValidationError(f"{what} may be at most {NAME_MAX} characters.")
    return value


def int_field(label: str, low: int, high: int, **kwargs: Any) -> forms.IntegerField:
    """A whole number within its bounds, which the form says beside it before any save (the
    input carries them as min/max too)."""
    limits = f"From {low} to {high}."
    given = kwargs.pop("help_text", "")
    kwargs["help_text"] = f"{given} {limits}" if given else limits
    messages = {
        "required": f"Give a number from {low} to {high}.",
        "invalid": f"Give a whole number from {low} to {high}.",
        "min_value": f"Must be from {low} to {high}.",
        "max_value": f"Must be from {low} to {high}.",
    }
    return forms.IntegerField(
        label=label, min_value=low, max_value=high, error_messages=messages, **kwargs
    )


def display_skill(name: str, specialisation: str = "") -> str:
    return f"{name} ({specialisation})" if specialisation else name


# --- what the sheet page shows --------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Stat:
    label: str
    value: Any
    note: str = ""


@dataclasses.dataclass(frozen=True)
class Section:
    title: str
    stats: tuple[Stat, ...]
    empty: str = "None yet."


# --- the part every shape shares ------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Part:
    """Some fields of a system's sheet model, under one title on the sheet."""

    #: edited as rows (a formset) rather than fixed fields of the sheet form
    rows: ClassVar[bool] = False

    title: str

    @property
    def keys(self) -> tuple[str, ...]:
        """The sheet model's fields this part writes."""
        return (self.key,)  # type: ignore[attr-defined]

    @property
    def used(self) -> bool:
        """Whether the campaign's sheet has this part (a ruleset may name nothing for it)."""
        return True

    def blank(self) -> dict[str, Any]:
        """A new character's values (none: the model's defaults)."""
        return {}

    def clean(self, key: str, raw: Any) -> Any:
        raise NotImplementedError

    def section(self, character: Any) -> Section | None:
        raise NotImplementedError

    # a group of fields on the sheet form
    form_title: str = ""

    def form_fields(self) -> list[tuple[str, forms.Field]]:
        return []

    def initial(self, character: Any) -> dict[str, Any]:
        return {}

    def read(self, data: Mapping[str, Any]) -> dict[str, Any]:
        return {}

    def check(self, form: forms.Form, data: Mapping[str, Any]) -> None:
        """Errors across this part's fields (each field checks itself)."""

    def datalist(self) -> tuple[str, tuple[str, ...]] | None:
        """(element id, names) the form offers as suggestions, if any."""
        return None
