from django.contrib.auth.forms import UserCreationForm


class SignupForm(UserCreationForm):
    """Django's own sign-up form: username, password twice, the password validators."""
