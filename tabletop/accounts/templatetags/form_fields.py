"""Form fields as a screen reader needs them (templates/includes/form_fields.html)."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


def form_errors_id(form: Any) -> str:
    """The id of the form's own errors (those of no one field), unique per prefixed form."""
    return f"{form.prefix}-form-errors" if form.prefix else "form-errors"


@register.simple_tag
def form_errors_id_of(form: Any) -> str:
    """``form_errors_id`` in a template."""
    return form_errors_id(form)


@register.filter
def field_widget(field: Any) -> Any:
    """The field's widget. When its form was refused as a whole (an error of no one field: a
    wrong name or password), each field of its own unrefused is marked invalid too and
    described by that error, so it is read on reaching the field, not only where it shows."""
    form = field.form
    if field.is_hidden or field.errors or not form.is_bound or not form.non_field_errors():
        return field
    described = " ".join(filter(None, [field.aria_describedby, form_errors_id(form)]))
    return field.as_widget(attrs={"aria-invalid": "true", "aria-describedby": described})
