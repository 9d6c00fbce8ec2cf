"""Forms of the campaigns app: they parse input; the actions decide and write."""

from __future__ import annotations

from django import forms

from tabletop import systems
from tabletop.campaigns.models import DESCRIPTION_MAX, Campaign


class CampaignCreateForm(forms.Form):
    name = forms.CharField(
        label="Campaign name",
        max_length=Campaign._meta.get_field("name").max_length,
        widget=forms.TextInput(attrs={"autofocus": True, "autocomplete": "off"}),
    )
    system = forms.ChoiceField(
        label="Rule system",
        choices=systems.choices,
        widget=forms.RadioSelect,
        error_messages={"invalid_choice": "Choose one of the systems listed."},
    )
    description = forms.CharField(
        label="Description (optional)",
        required=False,
        max_length=DESCRIPTION_MAX,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text=f"What the players should know before the first session "
        f"(up to {DESCRIPTION_MAX:,} characters).",
    )


class InviteEmailForm(forms.Form):
    email = forms.EmailField(label="Send the link to", help_text="One address at a time.")
