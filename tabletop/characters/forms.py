"""The character sheet form, built from the campaign's sheet spec, and the GM's adjust form.

The sheet form never has currency fields (bennies, plot points, development points, hits):
anything POSTed under those names is simply not read. Skills, stats and specialities are small
formsets; every error is attached to the field (or row field) at fault.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from tabletop.characters.models import Character
from tabletop.characters.sheets import (
    NAME_MAX,
    NOTES_MAX,
    SheetSpec,
    currencies,
    skill_key,
    skill_problem,
)

EXTRA_ROWS = 3
#: A skill row's name field, and its number when the system gives that no name of its own (the
#: sheet spec's default ``skill_label`` is "Skill" too: two fields a screen reader calls the same).
SKILL_NAME_LABEL = "Skill"
SKILL_VALUE_LABEL = "Value"


def _int_field(label: str, low: int, high: int, **kwargs: Any) -> forms.IntegerField:
    return forms.IntegerField(label=label, min_value=low, max_value=high, **kwargs)


class SheetForm(forms.Form):
    """Name, kind (GM only), notes and the fixed, named numbers of the system's sheet."""

    name = forms.CharField(max_length=80)
    notes = forms.CharField(
        required=False,
        max_length=NOTES_MAX,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="Background, gear, anything the table should know.",
    )

    def __init__(self, *args: Any, spec: SheetSpec, is_gm: bool, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.spec = spec
        self._groups: list[tuple[str, list[str]]] = []
        if is_gm:
            self.fields["kind"] = forms.ChoiceField(
                choices=Character.Kind.choices,
                initial=Character.Kind.PC,
                help_text="Player characters are played by their owner; NPCs and foes are yours.",
            )
            self.order_fields(["name", "kind", "notes"])
        self._named("Attributes", "attr", spec.attributes, spec.attribute_range)
        self._named("Mana", "mana", spec.colours, spec.mana_range)
        self._named("Training perks (extra dice)", "perk", spec.challenge_types, spec.perk_range)
        if spec.resources:
            names = []
            for index, resource in enumerate(spec.resources):
                low, high = spec.resource_range
                self.fields[f"res_{index}_current"] = _int_field(f"{resource} now", low, high)
                self.fields[f"res_{index}_max"] = _int_field(f"{resource} max", low, high)
                names += [f"res_{index}_current", f"res_{index}_max"]
            self._groups.append(("Resources", names))
        if spec.uses_movement:
            self.fields["quickness"] = _int_field("Quickness", *spec.quickness_range, initial=0)
            self.fields["mv"] = _int_field(
                "MV", *spec.mv_range, initial=0, help_text="Encumbered movement per round."
            )
            self.fields["total_penalty"] = _int_field(
                "Total penalty", *spec.penalty_range, initial=0
            )
            self._groups.append(("Movement", ["quickness", "mv", "total_penalty"]))
        if spec.uses_difficulty:
            self.fields["difficulty"] = _int_field(
                "Difficulty",
                *spec.difficulty_range,
                initial=spec.default_difficulty,
                help_text="Foes attack against this number.",
            )
            self._groups.append(("Defence", ["difficulty"]))

    def _named(self, title: str, prefix: str, names: tuple[str, ...], rng: tuple[int, int]) -> None:
        if not names:
            return
        for index, name in enumerate(names):
            self.fields[f"{prefix}_{index}"] = _int_field(name, *rng, initial=0)
        self._groups.append((title, [f"{prefix}_{index}" for index in range(len(names))]))

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        for index, resource in enumerate(self.spec.resources):
            current = cleaned.get(f"res_{index}_current")
            maximum = cleaned.get(f"res_{index}_max")
            if current is not None and maximum is not None and current > maximum:
                self.add_error(
                    f"res_{index}_current", f"{resource} can't be above its max ({maximum})."
                )
        return cleaned

    @property
    def head_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in ("name", "kind", "notes") if name in self.fields]

    @property
    def groups(self) -> list[tuple[str, list[forms.BoundField]]]:
        """(title, bound fields) per card of the sheet, for the template's fieldsets."""
        return [(title, [self[name] for name in names]) for title, names in self._groups]

    def sheet_part(self) -> dict[str, Any]:
        data = self.cleaned_data
        spec = self.spec
        sheet: dict[str, Any] = {"notes": data["notes"]}
        if spec.attributes:
            sheet["attributes"] = {n: data[f"attr_{i}"] for i, n in enumerate(spec.attributes)}
        if spec.colours:
            sheet["mana"] = {n: data[f"mana_{i}"] for i, n in enumerate(spec.colours)}
        if spec.challenge_types:
            sheet["training_perks"] = {
                n: data[f"perk_{i}"] for i, n in enumerate(spec.challenge_types)
            }
        if spec.resources:
            sheet["resources"] = {
                name: {"current": data[f"res_{i}_current"], "max": data[f"res_{i}_max"]}
                for i, name in enumerate(spec.resources)
            }
        for key in ("quickness", "mv", "total_penalty", "difficulty"):
            if key in self.fields:
                sheet[key] = data[key]
        return sheet

    @staticmethod
    def initial_for(spec: SheetSpec, character: Character) -> dict[str, Any]:
        initial: dict[str, Any] = {"name": character.name, "kind": character.kind}
        initial["notes"] = character.notes
        for i, name in enumerate(spec.attributes):
            initial[f"attr_{i}"] = character.attributes.get(name, 0)
        for i, name in enumerate(spec.colours):
            initial[f"mana_{i}"] = character.mana.get(name, 0)
        for i, name in enumerate(spec.challenge_types):
            initial[f"perk_{i}"] = character.training_perks.get(name, 0)
        for i, name in enumerate(spec.resources):
            value = character.resources.get(name, {})
            initial[f"res_{i}_current"] = value.get("current", 0)
            initial[f"res_{i}_max"] = value.get("max", 0)
        for key in ("quickness", "mv", "total_penalty", "difficulty"):
            if key in spec.keys:
                initial[key] = getattr(character, key)
        return initial


# --- rows: skills, stats, specialities -----------------------------------------------------------


class RowForm(forms.Form):
    """One row of a small formset; a row left blank is skipped."""

    def __init__(self, *args: Any, spec: SheetSpec, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.spec = spec


class SkillForm(RowForm):
    name = forms.CharField(max_length=NAME_MAX, label=SKILL_NAME_LABEL)
    specialisation = forms.CharField(max_length=NAME_MAX, required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        low, high = self.spec.skill_range
        label = self.spec.skill_label
        if label.casefold() == SKILL_NAME_LABEL.casefold():
            label = SKILL_VALUE_LABEL
        self.fields["value"] = _int_field(label, low, high)
        if self.spec.skills_listed_only:
            self.fields["name"] = forms.ChoiceField(
                label=SKILL_NAME_LABEL,
                choices=[("", "Choose…")] + [(n, n) for n in self.spec.skill_suggestions],
            )
        elif self.spec.skill_suggestions:
            self.fields["name"].widget.attrs["list"] = "skill-names"
        if not self.spec.uses_specialisation:
            del self.fields["specialisation"]
        self.order_fields(["name", "specialisation", "value"])

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        name = cleaned.get("name")
        if name:
            problem = skill_problem(self.spec, name.strip(), cleaned.get("specialisation", ""))
            if problem:
                field = "specialisation" if "specialisation" in self.fields else "name"
                self.add_error(field, problem)
        return cleaned


class StatForm(RowForm):
    name = forms.CharField(max_length=NAME_MAX, label="Stat")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["value"] = _int_field("Bonus", *self.spec.stat_range)
        self.fields["name"].widget.attrs["list"] = "stat-names"

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if name.casefold() == "quickness":
            raise ValidationError("Quickness has its own field on the sheet.")
        return name


class SpecialityForm(RowForm):
    name = forms.CharField(max_length=NAME_MAX, label="Speciality")
    attribute = forms.ChoiceField()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["attribute"].choices = [("", "Choose…")] + [
            (name, name) for name in self.spec.attributes
        ]


class RowFormSet(forms.BaseFormSet):
    """Rows with a duplicate check: the second row naming the same thing gets the error."""

    def key(self, form: forms.Form) -> Any:
        return form.cleaned_data["name"].strip().casefold()

    duplicate_message = "{name} is listed twice."

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


class SkillFormSet(RowFormSet):
    def key(self, form: forms.Form) -> Any:
        data = form.cleaned_data
        return skill_key(data["name"].strip(), data.get("specialisation", "").strip())

    duplicate_message = "This skill is listed twice."


def _formset(form: type[forms.Form], base: type[RowFormSet]) -> type[RowFormSet]:
    return forms.formset_factory(form, formset=base, extra=EXTRA_ROWS, can_delete=True)


# --- the whole sheet ------------------------------------------------------------------------------


@dataclass(frozen=True)
class SheetError:
    """One line of the error summary at the top of a refused sheet."""

    #: where it is, in words ("Skills, row 4, Specialisation"); empty for the sheet as a whole
    where: str
    message: str
    #: the id of the element the line links to (the field at fault); empty: no link
    target: str = ""


def rows_id(formset: forms.BaseFormSet) -> str:
    """The id of a list's fieldset on the form page (characters/form.html)."""
    return f"rows-{formset.prefix}"


def _field_errors(fields: list[forms.BoundField], where: str = "") -> list[SheetError]:
    return [
        SheetError(
            f"{where}, {field.label}" if where else str(field.label),
            str(message),
            field.id_for_label or field.auto_id,
        )
        for field in fields
        for message in field.errors
    ]


class SheetForms:
    """The sheet form plus the formsets its system uses, validated and read together."""

    def __init__(
        self,
        *,
        spec: SheetSpec,
        is_gm: bool,
        data: Any = None,
        character: Character | None = None,
    ) -> None:
        self.spec = spec
        initial = SheetForm.initial_for(spec, character) if character else None
        self.form = SheetForm(data, spec=spec, is_gm=is_gm, initial=initial)
        self.skills = self.stats = self.specialities = None
        kwargs = {"form_kwargs": {"spec": spec}}
        if spec.uses_skills:
            rows = [
                {k: row.get(k, "") for k in ("name", "value", "specialisation")}
                for row in (character.skills if character else [])
            ]
            cls = _formset(SkillForm, SkillFormSet)
            self.skills = cls(data, prefix="skills", initial=rows or None, **kwargs)
        if spec.uses_stats:
            rows = [
                {"name": n, "value": v}
                for n, v in (character.attributes if character else {}).items()
            ]
            cls = _formset(StatForm, RowFormSet)
            self.stats = cls(data, prefix="stats", initial=rows or None, **kwargs)
        if spec.uses_specialities:
            rows = list(character.specialities) if character else []
            cls = _formset(SpecialityForm, RowFormSet)
            self.specialities = cls(data, prefix="specialities", initial=rows or None, **kwargs)

    @property
    def formsets(self) -> list[tuple[str, Any, str]]:
        """(title, formset, hint) for each list the sheet has."""
        spec = self.spec
        skills_hint = ""
        if spec.uses_specialisation:
            skills_hint = (
                f"Only (S) skills ({', '.join(spec.may_specify)}) take a specialisation; "
                f"{' and '.join(spec.must_specify)} must have one."
            )
        named = [
            ("Skills", self.skills, skills_hint),
            ("Stats", self.stats, "Quickness has its own box under Movement."),
            ("Specialities", self.specialities, "Each adds a die to its attribute's rolls."),
        ]
        return [named_set for named_set in named if named_set[1] is not None]

    @property
    def errors(self) -> list[SheetError]:
        """Every error on a refused sheet in the order the page shows them, each pointing at its
        field: the summary at the top of the form lists them."""
        form = self.form
        found = [SheetError("", str(message)) for message in form.non_field_errors()]
        found += _field_errors(form.head_fields)
        for _title, fields in form.groups:
            found += _field_errors(fields)
        for title, formset, _hint in self.formsets:
            rows: list[SheetError] = []
            for number, row in enumerate(formset.forms, start=1):
                where = f"{title}, row {number}"
                visible = row.visible_fields()
                first = visible[0].id_for_label if visible else rows_id(formset)
                rows += [SheetError(where, str(m), first) for m in row.non_field_errors()]
                rows += _field_errors(visible, where)
            if not rows:  # "Please fix the rows marked below" says nothing the rows don't
                rows = [
                    SheetError(title, str(m), rows_id(formset)) for m in formset.non_form_errors()
                ]
            found += rows
        return found

    def is_valid(self) -> bool:
        valid = self.form.is_valid()
        for _title, formset, _hint in self.formsets:
            valid = formset.is_valid() and valid
        return valid

    @property
    def name(self) -> str:
        return self.form.cleaned_data["name"].strip()

    @property
    def kind(self) -> str | None:
        return self.form.cleaned_data.get("kind")

    def sheet(self) -> dict[str, Any]:
        """The sheet dict for the actions (no currencies, ever)."""
        sheet = self.form.sheet_part()
        if self.skills is not None:
            sheet["skills"] = [
                {
                    "name": row["name"].strip(),
                    "value": row["value"],
                    **(
                        {"specialisation": row.get("specialisation", "").strip()}
                        if self.spec.uses_specialisation
                        else {}
                    ),
                }
                for row in self.skills.rows()
            ]
        if self.stats is not None:
            sheet["attributes"] = {row["name"].strip(): row["value"] for row in self.stats.rows()}
        if self.specialities is not None:
            sheet["specialities"] = [
                {"name": row["name"].strip(), "attribute": row["attribute"]}
                for row in self.specialities.rows()
            ]
        return sheet

    def add_action_error(self, error: ValidationError) -> None:
        """Show an action's refusal on the form (the form's own checks normally catch it first)."""
        if hasattr(error, "error_dict"):
            for key, errors in error.message_dict.items():
                field = key if key in self.form.fields else None
                for message in errors:
                    self.form.add_error(field, message)
        else:
            for message in error.messages:
                self.form.add_error(None, message)


# --- the GM's adjustments -------------------------------------------------------------------------


class AdjustForm(forms.Form):
    """Set or add to the currencies and harm; a blank field leaves that value alone."""

    MODES = [("set", "Set to"), ("add", "Add (negative takes away)")]
    mode = forms.ChoiceField(choices=MODES, initial="set", widget=forms.RadioSelect)

    def __init__(self, *args: Any, spec: SheetSpec, character: Character, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for declared in currencies(spec):
            now = getattr(character, declared.field)
            self.fields[declared.field] = forms.IntegerField(
                label=declared.label,
                required=False,
                min_value=-declared.maximum,
                max_value=declared.maximum,
                widget=forms.NumberInput(attrs={"placeholder": f"now {now}"}),
            )

    @property
    def currency_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.fields if name != "mode"]

    def changes(self) -> dict[str, int]:
        return {
            name: value
            for name, value in self.cleaned_data.items()
            if name != "mode" and value is not None
        }

    @property
    def relative(self) -> bool:
        return self.cleaned_data["mode"] == "add"

    def add_action_error(self, error: ValidationError) -> None:
        if hasattr(error, "error_dict"):
            for key, errors in error.message_dict.items():
                for message in errors:
                    self.add_error(key if key in self.fields else None, message)
        else:
            for message in error.messages:
                self.add_error(None, message)
