from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm

from tabletop.accounts.models import TablePreferences


class SignupForm(UserCreationForm):
    """Django's own sign-up form (username, password twice, the password validators) and an
    email address, the way back when a password is forgotten."""

    email = forms.EmailField(
        required=False,
        help_text="Optional, but without it a forgotten password can't be reset.",
    )

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")

    def clean_email(self) -> str:
        email = self.cleaned_data.get("email", "").strip()
        if email and get_user_model().objects.filter(email__iexact=email).exists():
            raise forms.ValidationError("Another account uses that address.")
        return email


class PasswordConfirmedForm(forms.Form):
    """A change to the account that asks for its password (a session left open is not enough)."""

    password = forms.CharField(
        label="Your password, to confirm",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )

    def __init__(self, *args, user, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError("That is not your password.")
        return password


class EmailForm(PasswordConfirmedForm):
    """The address reset links go to: whoever holds it can take the account."""

    email = forms.EmailField(
        label="Email address",
        required=False,
        help_text="Where a password reset link is sent. Leave it empty to have none.",
    )
    field_order = ["email", "password"]


class DeleteAccountForm(PasswordConfirmedForm):
    pass


class TablePreferencesForm(forms.Form):
    """What a screen reader announces at the table, and whether "/" reaches the message box."""

    announce = forms.ChoiceField(
        label="Announce new cards",
        # The model's values, worded here for what each choice hears (no migration to reword).
        choices=[
            (TablePreferences.Announce.ALL, "Everything new at the table"),
            (
                TablePreferences.Announce.MINE,
                "Mine only: my results, whispers to me, my turn and lines that mention me",
            ),
            (TablePreferences.Announce.NONE, "Nothing, not even my turn"),
        ],
        widget=forms.RadioSelect,
        help_text=(
            "What a screen reader says as the table plays: each new card in one short line."
            ' "Your turn" is said when a turn is handed to you, unless you choose nothing.'
        ),
    )
    slash_key = forms.BooleanField(
        label="Press / to reach the message box",
        required=False,
        help_text="Turn it off if a single key press sets things off by accident.",
    )
