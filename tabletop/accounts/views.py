"""Sign-up, the account page and the home page; log in/out and the password views are Django's
own, behind the door's limits (throttle.py)."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login, logout, update_session_auth_hash
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from tabletop.accounts import actions, sessions
from tabletop.accounts.forms import (
    DeleteAccountForm,
    EmailForm,
    SignupForm,
    TablePreferencesForm,
)
from tabletop.accounts.models import table_preferences
from tabletop.accounts.throttle import client_address, spend, wait_words
from tabletop.campaigns.selectors import campaigns_for
from tabletop.scenes.selectors import live_scenes_for

#: Marks the session that began with the sign-up: its home page greets a new account.
NEW_ACCOUNT = "new_account"


def home(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return render(request, "home.html")
    context = {
        "live_scenes": live_scenes_for(user=request.user),
        "campaigns": campaigns_for(user=request.user),
        "new_account": bool(request.session.get(NEW_ACCOUNT)),
    }
    return render(request, "home.html", context)


def _too_many(what: str, wait: float) -> str:
    return f"Too many {what} from your address. Try again in {wait_words(wait)}."


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("home")
    form = SignupForm(request.POST or None)
    if request.method == "POST":
        # Every try counts, taken or not: sign-up must not become a way to test names.
        wait = spend(what="signup", who=client_address(request), allowed=settings.SIGNUPS_PER_HOUR)
        if wait is not None:
            context = {"form": SignupForm(), "limited": _too_many("sign-ups", wait)}
            return render(request, "registration/signup.html", context, status=429)
    next_url = _local_next(request)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        request.session[NEW_ACCOUNT] = True  # no earlier login: welcome, not "welcome back"
        return redirect(next_url or "home")
    return render(request, "registration/signup.html", {"form": form, "next": next_url})


def _local_next(request: HttpRequest) -> str:
    """The ``next`` a page was opened with, when it is a page of this site (an invite link),
    else "": no sign-up sends a new account elsewhere."""
    next_url = request.GET.get("next", "")
    if next_url and url_has_allowed_host_and_scheme(
        next_url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return next_url
    return ""


class PasswordResetView(auth_views.PasswordResetView):
    """Django's reset form, limited per address and per email address. Past the address's
    limit the form says so; past an email's, the mail is simply not sent again (the page
    is the same as ever, so it tells nobody whether the address has an account)."""

    email_template_name = "registration/password_reset_email.txt"
    subject_template_name = "registration/password_reset_subject.txt"

    @property
    def extra_email_context(self) -> dict:  # the mail names the site
        return {"site_title": settings.SITE_NAME}

    def post(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:
        allowed = settings.PASSWORD_RESETS_PER_HOUR
        wait = spend(what="reset", who=client_address(request), allowed=allowed)
        if wait is not None:
            context = self.get_context_data(form=self.get_form())
            context["limited"] = _too_many("reset requests", wait)
            return self.render_to_response(context, status=429)
        return super().post(request, *args, **kwargs)

    def form_valid(self, form) -> HttpResponse:
        email = form.cleaned_data["email"].strip().lower()
        if spend(what="reset-mail", who=email, allowed=settings.PASSWORD_RESETS_PER_HOUR):
            return redirect(self.get_success_url())  # no more mail to that inbox this hour
        return super().form_valid(form)


class PasswordChangeView(auth_views.PasswordChangeView):
    """Django's: the other sessions end (their sockets close); this one goes on, under the new
    key Django gives it."""

    def form_valid(self, form) -> HttpResponse:  # noqa: ANN001 - Django's signature
        old_key = self.request.session.session_key
        form.save()
        update_session_auth_hash(self.request, form.user)
        sessions.session_key_changed(
            user=form.user, old_key=old_key, new_key=self.request.session.session_key
        )
        sessions.sessions_end_all_but(
            user=form.user, keep=self.request.session.session_key, reason="password changed"
        )
        messages.success(self.request, "Password changed. Your other sessions have ended.")
        return redirect("account")


# --- the account page ----------------------------------------------------------------------------


def _account_context(request: HttpRequest, **extra) -> dict:
    user = request.user
    rows = sessions.live_sessions(user=user)
    current = request.session.session_key
    return {
        "email_form": extra.pop("email_form", None)
        or EmailForm(initial={"email": user.email}, user=user),
        "sessions": [(row, row.session_key == current) for row in rows],
        "others": sum(1 for row in rows if row.session_key != current),
        "campaigns_run": actions.campaigns_run(user=user),
        "table_form": extra.pop("table_form", None) or _table_form(user),
        **extra,
    }


@login_required
@require_GET
def account(request: HttpRequest) -> HttpResponse:
    return render(request, "accounts/account.html", _account_context(request))


@login_required
@require_POST
def email_change(request: HttpRequest) -> HttpResponse:
    form = EmailForm(request.POST, user=request.user)
    if form.is_valid():
        try:
            old = actions.email_change(
                user=request.user,
                email=form.cleaned_data["email"],
                account_link=request.build_absolute_uri(reverse("account")),
            )
        except ValidationError as error:
            form.add_error("email", error)
        else:
            told = f" A note went to {old}, the address before." if old else ""
            messages.success(request, f"Email address saved.{told}")
            return redirect("account")
    context = _account_context(request, email_form=form)
    return render(request, "accounts/account.html", context)


def _table_form(user) -> TablePreferencesForm:  # noqa: ANN001 - a user model
    prefs = table_preferences(user)
    return TablePreferencesForm(initial={"announce": prefs.announce, "slash_key": prefs.slash_key})


@login_required
@require_POST
def table_preferences_change(request: HttpRequest) -> HttpResponse:
    form = TablePreferencesForm(request.POST)
    if form.is_valid():
        actions.table_preferences_save(user=request.user, **form.cleaned_data)
        messages.success(request, "Table preferences saved.")
        return redirect("account")
    return render(request, "accounts/account.html", _account_context(request, table_form=form))


@login_required
@require_POST
def session_end(request: HttpRequest, session_id: int) -> HttpResponse:
    ended = sessions.sessions_end(
        user=request.user, ids=[session_id], reason="signed out from another device"
    )
    messages.success(
        request, "That session has ended." if ended else "That session had already ended."
    )
    return redirect("account")


@login_required
@require_POST
def sessions_end_others(request: HttpRequest) -> HttpResponse:
    ended = sessions.sessions_end_all_but(
        user=request.user, keep=request.session.session_key, reason="signed out everywhere"
    )
    messages.success(
        request, f"Signed out everywhere else ({ended} session{'s' if ended != 1 else ''} ended)."
    )
    return redirect("account")


@login_required
@require_GET
def account_download(request: HttpRequest) -> HttpResponse:
    body = actions.account_export(user=request.user)
    response = HttpResponse(body, content_type="application/zip")
    name = f"tabletop-{request.user.get_username()}.zip"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@login_required
@require_http_methods(["GET", "POST"])
def account_delete(request: HttpRequest) -> HttpResponse:
    form = DeleteAccountForm(request.POST or None, user=request.user)
    run = actions.campaigns_run(user=request.user)
    if request.method == "POST" and form.is_valid():
        try:
            actions.account_delete(user=request.user)
        except ValidationError as error:
            form.add_error(None, error)
        else:
            logout(request)
            messages.success(request, "Your account is deleted. Thank you for playing.")
            return redirect("home")
    context = {"form": form, "campaigns_run": run, "former": actions.FORMER_MEMBER}
    return render(request, "accounts/delete.html", context)
