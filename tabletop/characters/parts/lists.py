"""Parts that are a list the player edits a row at a time (a small formset): ``SkillList``,
``FreeStats`` and ``TaggedNames``."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar

from django import forms
from django.core.exceptions import ValidationError
from django.forms.utils import ErrorDict

from tabletop.characters.parts.base import (
    NAME_MAX,
    Part,
    Section,
    Stat,
    canonical,
    display_skill,
    int_field,
    int_in,
    text,
)
from tabletop.words import a_word

# --- lists of rows --------------------------------------------------------------------------------


class RowForm(forms.Form):
    """One row of a small formset; a row left blank is skipped.

    A row counts by its name: typed values in a row without a name (a spare row's number, say)
    get one clear message on the name, not "required" on every field of the row.
    """

    def __init__(self, *args: Any, part: Part, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.part = part

    def full_clean(self) -> None:
        super().full_clean()
        if not self.is_bound or "name" not in self.fields or not self._errors:
            return
        if self["name"].value() not in (None, "") and str(self["name"].value()).strip():
            return
        if self.data.get(self.add_prefix("DELETE")) not in (None, "", "off", "false"):
            return  # ticked "Remove": dropped whatever it holds
        noun = getattr(self.part, "row_noun", "row")
        self._errors = ErrorDict()
        if isinstance(self.fields["name"], forms.ChoiceField):
            ask = f"Choose {a_word(noun)}"
        else:
            ask = f"Give this {noun} a name"
        if self.empty_permitted:  # a spare row
            self.add_error("name", f"{ask}, or clear the row to add none.")
        else:
            self.add_error("name", f"{ask}, or tick Remove to drop it.")


#: The most rows one list of a sheet keeps (skills, stats...).
ROWS_MAX = 100


class RowFormSet(forms.BaseFormSet):
    """Rows with a duplicate check: the second row naming the same thing gets the error."""

    def key(self, form: forms.Form) -> Any:
        return form.cleaned_data["name"].strip().casefold()

    duplicate_message = "{name} is listed twice."

    default_error_messages = {
        "too_many_forms": f"At most {ROWS_MAX} rows: remove some before adding more.",
    }

    def add_fields(self, form: forms.Form, index: int | None) -> None:
        super().add_fields(form, index)
        if "DELETE" in form.fields:
            form.fields["DELETE"].label = "Remove"

    def clean(self) -> None:
        if any(self.errors):
            return
        seen = set()
        for form in self.forms:
            if not self._is_row(form):
                continue
            key = self.key(form)
            if key in seen:
                name = form.cleaned_data["name"].strip()
                form.add_error("name", self.duplicate_message.format(name=name))
            seen.add(key)
        if any(self.errors):
            raise ValidationError("Please fix the rows marked below.")

    def _is_row(self, form: forms.Form) -> bool:
        # Blank extra rows have no cleaned data; rows ticked "Delete" are dropped.
        return bool(form.cleaned_data.get("name")) and not self._should_delete_form(form)

    def rows(self) -> list[dict[str, Any]]:
        return [form.cleaned_data for form in self.forms if self._is_row(form)]


EXTRA_ROWS = 3


@dataclasses.dataclass(frozen=True)
class RowsPart(Part):
    """A list the player edits a row at a time."""

    rows: ClassVar[bool] = True

    key: str = ""
    #: the formset's prefix (blank: the key)
    prefix: str = ""
    #: a line under the list's title on the form
    hint: str = ""

    @property
    def form_prefix(self) -> str:
        return self.prefix or self.key

    @property
    def row_noun(self) -> str:
        """What one row is ("skill"), for the messages about a row."""
        return getattr(self, "noun", "") or "row"

    def form_hint(self) -> str:
        return self.hint

    def row_form(self) -> type[RowForm]:
        raise NotImplementedError

    def row_formset(self) -> type[RowFormSet]:
        return RowFormSet

    def formset(self) -> type[RowFormSet]:
        return forms.formset_factory(
            self.row_form(),
            formset=self.row_formset(),
            extra=EXTRA_ROWS,
            can_delete=True,
            max_num=ROWS_MAX,
            validate_max=True,
        )

    def row_initial(self, character: Any) -> list[dict[str, Any]]:
        raise NotImplementedError

    def read_rows(self, rows: list[dict[str, Any]]) -> dict[str, Any]:
        raise NotImplementedError


#: A skill row's name field, and its number when the system gives that no name of its own (the
#: default ``value_label`` is "Skill" too: two fields a screen reader would call the same).
SKILL_NAME_LABEL = "Skill"
SKILL_VALUE_LABEL = "Value"


def skill_key(name: str, specialisation: str = "") -> tuple[str, str]:
    return (name.casefold(), specialisation.casefold())


@dataclasses.dataclass(frozen=True)
class SkillList(RowsPart):
    """Skills: a list of {name, value[, specialisation]}."""

    title: str = "Skills"
    #: what a skill's number is called ("SV")
    value_label: str = "Skill"
    suggestions: tuple[str, ...] = ()
    range: tuple[int, int] = (0, 10)
    #: only the ruleset's skills (the rules engine refuses others)
    listed_only: bool = False
    specialisation: bool = False
    may_specify: tuple[str, ...] = ()
    must_specify: tuple[str, ...] = ()

    @property
    def row_noun(self) -> str:
        return "skill"

    def form_hint(self) -> str:
        if not self.specialisation:
            return self.hint
        return (
            f"Only (S) skills ({', '.join(self.may_specify)}) take a specialisation; "
            f"{' and '.join(self.must_specify)} must have one."
        )

    def problem(self, name: str, specialisation: str) -> str | None:
        """Why a (name, specialisation) pair is not allowed, or None."""
        folded = name.casefold()
        listed = any(folded == known.casefold() for known in self.suggestions)
        if self.listed_only and not listed:
            return (
                f"Unknown skill {name!r}; this campaign's skills are: "
                + ", ".join(self.suggestions)
                + "."
            )
        if specialisation and not self.specialisation:
            return "This system's skills have no specialisations."
        if any(folded == must.casefold() for must in self.must_specify) and not specialisation:
            return f"{name} must be specified: say which one the character is good at."
        may = any(folded == known.casefold() for known in self.may_specify)
        if specialisation and listed and not may:
            return f"{name} is not an (S) skill and can't be specified."
        return None

    def clean(self, key: str, raw: Any) -> list[dict[str, Any]]:
        if not isinstance(raw, list | tuple):
            raise ValidationError("Skills must be a list.")
        out, seen = [], set()
        for row in raw:
            if not isinstance(row, Mapping):
                raise ValidationError("Each skill must have a name and a value.")
            name = text(row.get("name"), "Skill name")
            # Use the seed's spelling for a listed skill typed in another case.
            for known in self.suggestions:
                if known.casefold() == name.casefold():
                    name = known
            specialisation = text(row.get("specialisation", ""), "Specialisation", required=False)
            problem = self.problem(name, specialisation)
            if problem:
                raise ValidationError(problem)
            found = skill_key(name, specialisation)
            if found in seen:
                raise ValidationError(
                    f"The skill {display_skill(name, specialisation)} is listed twice."
                )
            seen.add(found)
            value = int_in(row.get("value"), *self.range, f"{self.value_label} of {name}")
            skill = {"name": name, "value": value}
            if self.specialisation:
                skill["specialisation"] = specialisation
            out.append(skill)
        return out

    def section(self, character: Any) -> Section:
        return Section(
            self.title,
            tuple(
                Stat(
                    display_skill(row.get("name", ""), row.get("specialisation", "")),
                    row.get("value", 0),
                )
                for row in getattr(character, self.key)
            ),
        )

    def datalist(self) -> tuple[str, tuple[str, ...]] | None:
        if self.suggestions and not self.listed_only:
            return ("skill-names", self.suggestions)
        return None

    def row_form(self) -> type[RowForm]:
        return SkillForm

    def row_formset(self) -> type[RowFormSet]:
        return SkillFormSet

    def row_initial(self, character: Any) -> list[dict[str, Any]]:
        return [
            {k: row.get(k, "") for k in ("name", "value", "specialisation")}
            for row in getattr(character, self.key)
        ]

    def read_rows(self, rows: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            self.key: [
                {
                    "name": row["name"].strip(),
                    "value": row["value"],
                    **(
                        {"specialisation": row.get("specialisation", "").strip()}
                        if self.specialisation
                        else {}
                    ),
                }
                for row in rows
            ]
        }


class SkillForm(RowForm):
    name = forms.CharField(max_length=NAME_MAX, label=SKILL_NAME_LABEL)
    specialisation = forms.CharField(max_length=NAME_MAX, required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        part = self.part
        label = part.value_label
        if label.casefold() == SKILL_NAME_LABEL.casefold():
            label = SKILL_VALUE_LABEL
        self.fields["value"] = int_field(label, *part.range)
        if part.listed_only:
            self.fields["name"] = forms.ChoiceField(
                label=SKILL_NAME_LABEL,
                choices=[("", "Choose…")] + [(n, n) for n in part.suggestions],
            )
        elif part.suggestions:
            self.fields["name"].widget.attrs["list"] = "skill-names"
        if not part.specialisation:
            del self.fields["specialisation"]
        self.order_fields(["name", "specialisation", "value"])

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        name = cleaned.get("name")
        if name:
            problem = self.part.problem(name.strip(), cleaned.get("specialisation", ""))
            if problem:
                field = "specialisation" if "specialisation" in self.fields else "name"
                self.add_error(field, problem)
        return cleaned


class SkillFormSet(RowFormSet):
    def key(self, form: forms.Form) -> Any:
        data = form.cleaned_data
        return skill_key(data["name"].strip(), data.get("specialisation", "").strip())

    duplicate_message = "This skill is listed twice."


@dataclasses.dataclass(frozen=True)
class FreeStats(RowsPart):
    """Numbers under names the player gives ({"Perceptivity": 5}), kept in one field."""

    title: str = "Stats"
    #: what one is called ("stat")
    noun: str = "stat"
    value_label: str = "Value"
    suggestions: tuple[str, ...] = ()
    range: tuple[int, int] = (-100, 100)
    #: (label, field): names that are fields of their own, shown first in this part's card
    reserved: tuple[tuple[str, str], ...] = ()

    def refuse_reserved(self, name: str) -> None:
        """Refuse a name that is a field of its own (a stat kept outside this list)."""
        if name.casefold() in {label.casefold() for label, _field in self.reserved}:
            raise ValidationError(f"{name} has its own field on the sheet.")

    def clean(self, key: str, raw: Any) -> dict[str, int]:
        noun = self.noun.capitalize()
        if not isinstance(raw, Mapping):
            raise ValidationError(f"{self.title} must map each {self.noun} to a number.")
        out: dict[str, int] = {}
        for given, value in raw.items():
            name = text(given, f"{noun} name")
            self.refuse_reserved(name)
            if name.casefold() in {known.casefold() for known in out}:
                raise ValidationError(f"The {self.noun} {name} is listed twice.")
            out[name] = int_in(value, *self.range, f"{noun} {name}")
        return out

    def section(self, character: Any) -> Section:
        stats = [Stat(label, getattr(character, field)) for label, field in self.reserved]
        stats += [Stat(name, value) for name, value in getattr(character, self.key).items()]
        return Section(self.title, tuple(stats))

    def datalist(self) -> tuple[str, tuple[str, ...]] | None:
        return (f"{self.noun}-names", self.suggestions) if self.suggestions else None

    def row_form(self) -> type[RowForm]:
        return FreeStatForm

    def row_initial(self, character: Any) -> list[dict[str, Any]]:
        return [{"name": n, "value": v} for n, v in getattr(character, self.key).items()]

    def read_rows(self, rows: list[dict[str, Any]]) -> dict[str, Any]:
        return {self.key: {row["name"].strip(): row["value"] for row in rows}}


class FreeStatForm(RowForm):
    name = forms.CharField(max_length=NAME_MAX)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        part = self.part
        self.fields["name"].label = part.noun.capitalize()
        self.fields["value"] = int_field(part.value_label, *part.range)
        found = part.datalist()
        if found:
            self.fields["name"].widget.attrs["list"] = found[0]

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        self.part.refuse_reserved(name)
        return name


@dataclasses.dataclass(frozen=True)
class TaggedNames(RowsPart):
    """Names the player gives, each tagged with one of the ruleset's names ({name, <tag>})."""

    #: what one row is called ("speciality")
    noun: str = ""
    #: what its tag is called, and the row's key for it ("attribute")
    tag: str = ""
    tags: tuple[str, ...] = ()

    def clean(self, key: str, raw: Any) -> list[dict[str, str]]:
        noun = self.noun.capitalize()
        if not isinstance(raw, list | tuple):
            raise ValidationError(f"{self.title} must be a list.")
        out, seen = [], set()
        for row in raw:
            if not isinstance(row, Mapping):
                raise ValidationError(f"Each {self.noun} needs a name and {a_word(self.tag)}.")
            name = text(row.get("name"), f"{noun} name")
            tag = canonical(row.get(self.tag), self.tags, self.tag)
            if name.casefold() in seen:
                raise ValidationError(f"The {self.noun} {name} is listed twice.")
            seen.add(name.casefold())
            out.append({"name": name, self.tag: tag})
        return out

    def section(self, character: Any) -> Section:
        return Section(
            self.title,
            tuple(
                Stat(row.get("name", ""), row.get(self.tag, ""))
                for row in getattr(character, self.key)
            ),
        )

    def row_form(self) -> type[RowForm]:
        return TaggedNameForm

    def row_initial(self, character: Any) -> list[dict[str, Any]]:
        return list(getattr(character, self.key))

    def read_rows(self, rows: list[dict[str, Any]]) -> dict[str, Any]:
        return {self.key: [{"name": row["name"].strip(), self.tag: row[self.tag]} for row in rows]}


class TaggedNameForm(RowForm):
    name = forms.CharField(max_length=NAME_MAX)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        part = self.part
        self.fields["name"].label = part.noun.capitalize()
        self.fields[part.tag] = forms.ChoiceField(
            choices=[("", "Choose…")] + [(name, name) for name in part.tags]
        )
