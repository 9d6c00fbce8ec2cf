"""The GM's form for the campaign's Discord mirror."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from tabletop.discord import webhooks
from tabletop.discord.models import Mirror


class MirrorForm(forms.Form):
    """A webhook URL (blank: keep the one set) and what goes there. The field never shows a
    URL back, not even the one just refused: a token may be in it."""

    webhook_url = forms.CharField(
        label="Discord webhook URL",
        required=False,
        max_length=500,
        strip=True,
        widget=forms.TextInput(
            attrs={
                "autocomplete": "off",
                "spellcheck": "false",
                "inputmode": "url",
                "placeholder": "https://discord.com/api/webhooks/…",
            }
        ),
    )
    sends = forms.MultipleChoiceField(
        label="What goes there",
        choices=Mirror.Sends.choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )

    def __init__(self, *args: Any, mirror: Mirror | None = None, **kwargs: Any) -> None:
        kwargs.setdefault(
            "initial", {"sends": mirror.sends if mirror is not None else Mirror.Sends.values}
        )
        super().__init__(*args, **kwargs)
        self.mirror = mirror
        if mirror is not None and mirror.running:
            self.fields["webhook_url"].widget.attrs["placeholder"] = (
                "Paste a new URL to replace the one set"
            )

    def clean_webhook_url(self) -> webhooks.Webhook | None:
        pasted = self.cleaned_data.get("webhook_url", "")
        if not pasted:
            if self.mirror is None:
                raise ValidationError(f"Paste the webhook's URL. {webhooks.HOW_TO_GET_ONE}")
            return None
        return webhooks.parse(pasted)
