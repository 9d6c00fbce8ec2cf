"""The character sheet form, built from the parts of the campaign's sheet spec, and the GM's
adjust form.

The sheet form never has currency fields: anything POSTed under their names is simply not read.
A part that is a list of rows is a small formset; every error is attached to the field (or row
field) at fault.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from tabletop.characters.models import Character
from tabletop.characters.parts import RowFormSet, RowsPart
from tabletop.characters.sheets import NOTES_MAX, SheetSpec, currencies


class SheetForm(forms.Form):
    """Name, role (GM only), notes and the fixed fields of each part of the system's sheet."""

    name = forms.CharField(max_length=80)
    notes = forms.CharField(
        required=False,
        max_length=NOTES_MAX,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text=f"Background, gear, anything the table should know (up to {NOTES_MAX:,} "
        "characters).",
    )

    def __init__(self, *args: Any, spec: SheetSpec, is_gm: bool, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.spec = spec
        self._groups: list[tuple[str, list[str]]] = []
        if is_gm:
            self.fields["role"] = forms.ChoiceField(
                choices=Character.Role.choices,
                initial=Character.Role.PC,
                help_text="Player characters are played by their owner; NPCs and foes are yours.",
            )
            self.order_fields(["name", "role", "notes"])
        for part in self.parts:
            named = part.form_fields()
            self.fields.update(named)
            self._groups.append((part.form_title or part.title, [name for name, _ in named]))

    @property
    def parts(self) -> list:
        return [part for part in self.spec.form_parts() if not part.rows]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        for part in self.parts:
            part.check(self, cleaned)
        return cleaned

    @property
    def head_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in ("name", "role", "notes") if name in self.fields]

    @property
    def groups(self) -> list[tuple[str, list[forms.BoundField]]]:
        """(title, bound fields) per card of the sheet, for the template's fieldsets."""
        return [(title, [self[name] for name in names]) for title, names in self._groups]

    def sheet_part(self) -> dict[str, Any]:
        sheet: dict[str, Any] = {"notes": self.cleaned_data["notes"]}
        for part in self.parts:
            sheet.update(part.read(self.cleaned_data))
        return sheet

    @staticmethod
    def initial_for(spec: SheetSpec, character: Character) -> dict[str, Any]:
        initial: dict[str, Any] = {"name": character.name, "role": character.role}
        initial["notes"] = character.notes
        for part in spec.form_parts():
            initial.update(part.initial(character))
        return initial


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
    """The sheet form plus a formset for each list the system's sheet has, validated and read
    together."""

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
        self._lists: list[tuple[RowsPart, RowFormSet]] = []
        for part in spec.form_parts():
            if not part.rows:
                continue
            rows = part.row_initial(character) if character else []
            formset = part.formset()(
                data, prefix=part.form_prefix, initial=rows or None, form_kwargs={"part": part}
            )
            self._lists.append((part, formset))

    @property
    def formsets(self) -> list[tuple[str, Any, str]]:
        """(title, formset, hint) for each list the sheet has."""
        return [(part.title, formset, part.form_hint()) for part, formset in self._lists]

    def rows(self, key: str) -> RowFormSet:
        """The formset of the list that keeps the sheet model's field ``key``."""
        return next(formset for part, formset in self._lists if key in part.keys)

    @property
    def datalists(self) -> list[tuple[str, tuple[str, ...]]]:
        """(element id, names) for each list of suggestions the form's fields offer."""
        found = (part.datalist() for part in self.spec.form_parts())
        return [datalist for datalist in found if datalist]

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
    def role(self) -> str | None:
        return self.form.cleaned_data.get("role")

    def sheet(self) -> dict[str, Any]:
        """The sheet dict for the actions (no currencies, ever)."""
        sheet = self.form.sheet_part()
        for part, formset in self._lists:
            sheet.update(part.read_rows(formset.rows()))
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
                help_text=f"From {-declared.maximum} to {declared.maximum}.",
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


class SavedRollForm(forms.Form):
    """A saved roll's name and dice (``saved_rolls``: checked by the dice language on save)."""

    name = forms.CharField(
        max_length=60, widget=forms.TextInput(attrs={"placeholder": "Longsword"})
    )
    expression = forms.CharField(
        label="Dice",
        max_length=200,
        widget=forms.TextInput(attrs={"placeholder": "1d20+5", "autocomplete": "off"}),
    )
