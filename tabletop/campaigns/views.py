"""Campaign pages: thin views that parse a request, call one action and render or redirect.

Who may see what: a non-member gets 404 for every campaign page (the campaign's existence
stays private), a player gets 403 on the GM's pages, and anonymous users are sent to log in.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import NoReverseMatch, reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_http_methods, require_POST

from tabletop.accounts.throttle import spend
from tabletop.campaigns import actions, selectors
from tabletop.campaigns.forms import CampaignCreateForm, InviteEmailForm
from tabletop.campaigns.models import Campaign, Membership
from tabletop.campaigns.ruleset_forms import RulesetForm
from tabletop.characters.views import saved_rolls_box
from tabletop.discord import pages as discord_pages
from tabletop.discord import selectors as discord_selectors
from tabletop.notify.selectors import unread_by_campaign


def _member_or_404(request: HttpRequest, pk: int) -> tuple[Campaign, Membership]:
    found = selectors.campaign_membership(pk=pk, user=request.user)
    if found is None:
        raise Http404("No such campaign.")
    return found


def gm_or_403(request: HttpRequest, pk: int) -> Campaign:
    """The campaign for its GM: 404 for a non-member, 403 for a player (the Discord views too)."""
    campaign, membership = _member_or_404(request, pk)
    if not selectors.is_gm(campaign=campaign, user=request.user):
        raise PermissionDenied("Only the campaign's GM may do that.")
    return campaign


def _url_or_none(name: str, **kwargs: object) -> str | None:
    # The characters app is built separately; link to its pages only once they exist.
    try:
        return reverse(name, kwargs=kwargs)
    except NoReverseMatch:
        return None


def _messages_of(error: ValidationError) -> str:
    return " ".join(error.messages)


# --- the user's campaigns --------------------------------------------------------------------


@login_required
def campaign_list(request: HttpRequest) -> HttpResponse:
    memberships = list(selectors.memberships_for(user=request.user))
    unread = unread_by_campaign(user=request.user)
    # What is new since the member last looked comes first; newest campaign first otherwise.
    memberships.sort(key=lambda membership: not unread.get(membership.campaign_id))
    return render(request, "campaigns/list.html", {"memberships": memberships})


@login_required
@require_http_methods(["GET", "POST"])
def campaign_create(request: HttpRequest) -> HttpResponse:
    form = CampaignCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            campaign = actions.campaign_create(gm=request.user, **form.cleaned_data)
        except ValidationError as error:
            form.add_error(None, error)
        else:
            messages.success(request, f"{campaign.name} is ready. Invite your players below.")
            return redirect("campaigns:detail", pk=campaign.pk)
    return render(request, "campaigns/create.html", {"form": form})


# --- one campaign --------------------------------------------------------------------------------


def _detail_context(request: HttpRequest, campaign: Campaign, membership: Membership) -> dict:
    viewer_is_gm = selectors.is_gm(campaign=campaign, user=request.user)
    invite = selectors.active_invite(campaign=campaign) if viewer_is_gm else None
    characters = [
        (character, _url_or_none("characters:detail", pk=character.pk))
        for character in selectors.characters_in(campaign=campaign, viewer_is_gm=viewer_is_gm)
    ]
    return {
        "campaign": campaign,
        "membership": membership,
        "viewer_is_gm": viewer_is_gm,
        "members": selectors.members_of(campaign=campaign),
        "characters": characters,
        "scenes": selectors.scenes_of(campaign=campaign),
        "character_create_url": _url_or_none("characters:create", campaign_pk=campaign.pk),
        "invite": invite,
        "invite_url": (
            request.build_absolute_uri(reverse("campaigns:join", kwargs={"token": invite.token}))
            if invite
            else None
        ),
        "ruleset_customised": bool(campaign.ruleset),
        "rolls_box": saved_rolls_box(user=request.user, campaign=campaign),
        # Every member is told what of the table goes to the group's Discord (never where).
        "mirrored": discord_selectors.mirrored_to_discord(campaign=campaign),
    }


@login_required
def campaign_detail(request: HttpRequest, pk: int) -> HttpResponse:
    campaign, membership = _member_or_404(request, pk)
    return render(request, "campaigns/detail.html", _detail_context(request, campaign, membership))


def _after_gm_change(
    request: HttpRequest, campaign: Campaign, partial: str, notice: str, *, error: bool = False
) -> HttpResponse:
    """htmx swaps just the changed partial, with the notice in it; a plain post goes back to the
    page, with the notice as a message."""
    if request.htmx:
        membership = selectors.membership_of(campaign=campaign, user=request.user)
        context = _detail_context(request, campaign, membership)
        context.update(notice=notice, notice_is_error=error, notice_for=partial)
        return render(request, f"campaigns/detail.html#{partial}", context)
    (messages.error if error else messages.success)(request, notice)
    return redirect("campaigns:detail", pk=campaign.pk)


@login_required
@require_POST
def invite_create(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = gm_or_403(request, pk)
    actions.invite_create(campaign=campaign, actor=request.user)
    notice = "New invite link made. Any earlier link no longer works."
    return _after_gm_change(request, campaign, "invites", notice)


@login_required
@require_POST
def invite_revoke(request: HttpRequest, pk: int, invite_pk: int) -> HttpResponse:
    campaign = gm_or_403(request, pk)
    invite = get_object_or_404(campaign.invites, pk=invite_pk)
    actions.invite_revoke(invite=invite, actor=request.user)
    notice = "Invite link revoked: it no longer lets anyone join."
    return _after_gm_change(request, campaign, "invites", notice)


@login_required
@require_POST
def member_remove(request: HttpRequest, pk: int, user_pk: int) -> HttpResponse:
    campaign = gm_or_403(request, pk)
    user = get_object_or_404(get_user_model(), pk=user_pk)
    try:
        actions.member_remove(campaign=campaign, actor=request.user, user=user)
    except ValidationError as error:
        return _after_gm_change(request, campaign, "member-list", _messages_of(error), error=True)
    notice = f"{user.get_username()} left the table; their characters are kept."
    return _after_gm_change(request, campaign, "member-list", notice)


@login_required
@require_POST
def invite_email(request: HttpRequest, pk: int, invite_pk: int) -> HttpResponse:
    campaign = gm_or_403(request, pk)
    invite = get_object_or_404(campaign.invites, pk=invite_pk)
    form = InviteEmailForm(request.POST)
    if not form.is_valid():
        return _after_gm_change(request, campaign, "invites", "Give an email address.", error=True)
    address = form.cleaned_data["email"]
    wait = spend(
        what="invite-mail", who=str(request.user.pk), allowed=settings.INVITE_MAILS_PER_HOUR
    )
    link = request.build_absolute_uri(reverse("campaigns:join", kwargs={"token": invite.token}))
    try:
        actions.invite_email(
            invite=invite, actor=request.user, address=address, link=link, wait=wait
        )
    except ValidationError as error:
        return _after_gm_change(request, campaign, "invites", _messages_of(error), error=True)
    except OSError:  # the mail server refused or could not be reached
        notice = "The mail could not be sent just now; copy the link instead, or try again later."
        return _after_gm_change(request, campaign, "invites", notice, error=True)
    return _after_gm_change(request, campaign, "invites", f"Invite sent to {address}.")


# --- joining by invite ---------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def join(request: HttpRequest, token: str) -> HttpResponse:
    """An invite link: its campaign, to join as a player. Opened logged out, it names the
    campaign and its GM and offers to sign up or log in, each coming back here; a link that
    does not work says so and names nothing."""
    invite = selectors.invite_for_token(token=token)
    if invite is None:
        return render(
            request, "campaigns/join_invalid.html", {"reason": actions.INVITE_INVALID}, status=404
        )
    campaign = invite.campaign
    if not request.user.is_authenticated:
        if request.method == "POST":
            return redirect_to_login(request.get_full_path())
        here = urlencode({"next": request.path})
        context = {"campaign": campaign, "signup_url": f"{reverse('signup')}?{here}"}
        context["login_url"] = f"{reverse(settings.LOGIN_URL)}?{here}"
        return render(request, "campaigns/join.html", context)
    if selectors.membership_of(campaign=campaign, user=request.user) is not None:
        messages.info(request, f"You are already at the table of {campaign.name}.")
        return redirect("campaigns:detail", pk=campaign.pk)
    if request.method == "POST":
        try:
            actions.campaign_join(user=request.user, token=token)
        except ValidationError as error:
            context = {"reason": _messages_of(error)}
            return render(request, "campaigns/join_invalid.html", context, status=404)
        messages.success(request, f"Welcome to {campaign.name}! You joined as a player.")
        return redirect("campaigns:detail", pk=campaign.pk)
    return render(request, "campaigns/join.html", {"invite": invite, "campaign": campaign})


@login_required
@require_POST
def campaign_delete(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = gm_or_403(request, pk)
    name = campaign.name
    try:
        actions.campaign_delete(
            campaign=campaign, actor=request.user, confirm=request.POST.get("confirm", "")
        )
    except ValidationError as error:
        messages.error(request, _messages_of(error))
        return redirect("campaigns:settings", pk=pk)
    messages.success(request, f"{name} is deleted.")
    return redirect("home")


# --- the GM's settings: the campaign's ruleset ---------------------------------------------------


def _ruleset_form(campaign: Campaign, data: object = None) -> tuple[RulesetForm, str | None]:
    current, problem = selectors.ruleset_in_force(campaign=campaign)
    # A system may bring a form of its own; the generic one follows its defaults' shape.
    form_class = campaign.game.settings_form or RulesetForm
    form = form_class(
        data,
        defaults=selectors.ruleset_defaults(campaign=campaign),
        current=current,
        changed=set(campaign.ruleset or {}),
    )
    return form, form.in_form_words(problem) if problem else problem


@login_required
@require_http_methods(["GET", "POST"])
def campaign_settings(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = gm_or_403(request, pk)
    form, problem = _ruleset_form(campaign, request.POST if request.method == "POST" else None)
    # "Add another" only re-shows the form with one more blank row.
    if request.method == "POST" and not form.adding_row and form.is_valid():
        try:
            actions.ruleset_update(
                campaign=campaign, actor=request.user, overrides=form.cleaned_ruleset
            )
        except ValidationError as error:
            for message in error.messages:
                form.add_ruleset_error(message)
        else:
            messages.success(request, "Ruleset saved. It applies from the next roll on.")
            return redirect("campaigns:settings", pk=campaign.pk)
    return settings_page(request, campaign, form=form, problem=problem)


def settings_page(
    request: HttpRequest,
    campaign: Campaign,
    *,
    form: RulesetForm | None = None,
    problem: str | None = None,
    discord_form: object = None,
) -> HttpResponse:
    """The GM's settings page: the ruleset form and the Discord mirror's section (with a
    refused form of either, its errors shown)."""
    if form is None:
        form, problem = _ruleset_form(campaign, None)
    context = {"campaign": campaign, "form": form, "stored_problem": problem}
    context.update(discord_pages.settings_context(campaign, form=discord_form))
    return render(request, "campaigns/settings.html", context)


@login_required
@require_POST
def ruleset_reset(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = gm_or_403(request, pk)
    actions.ruleset_update(campaign=campaign, actor=request.user, overrides={})
    messages.success(request, "Ruleset reset to the system's defaults.")
    return redirect("campaigns:settings", pk=campaign.pk)
