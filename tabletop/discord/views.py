"""The GM's Discord mirror on the campaign settings page: thin views over ``actions``. Each
answers htmx with the page's Discord section alone, a plain form post with the whole page."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_GET, require_POST

from tabletop.campaigns.models import Campaign
from tabletop.campaigns.views import gm_or_403, settings_page
from tabletop.discord import actions, pages
from tabletop.discord.forms import MirrorForm
from tabletop.discord.models import Mirror

SECTION = "campaigns/settings.html#discord"


def _answer(
    request: HttpRequest,
    campaign: Campaign,
    notice: str,
    *,
    error: bool = False,
    form: MirrorForm | None = None,
) -> HttpResponse:
    if request.htmx:
        context = {"campaign": campaign}
        context.update(
            pages.settings_context(campaign, form=form, notice=notice, notice_is_error=error)
        )
        return render(request, SECTION, context)
    if form is not None:  # a refused form: the whole page, the errors beside their fields
        return settings_page(request, campaign, discord_form=form)
    (messages.error if error else messages.success)(request, notice)
    return redirect(reverse("campaigns:settings", args=[campaign.pk]) + "#discord")


@sensitive_post_parameters("webhook_url")
@login_required
@require_POST
def mirror_save(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = gm_or_403(request, pk)
    mirror = Mirror.objects.filter(campaign=campaign).first()
    form = MirrorForm(request.POST, mirror=mirror)
    if form.is_valid():
        try:
            actions.mirror_set(
                campaign=campaign,
                actor=request.user,
                webhook=form.cleaned_data["webhook_url"],
                sends=form.cleaned_data["sends"],
            )
        except ValidationError as error:
            form.add_error(None, error)
        else:
            notice = "Saved. From now on the log goes to Discord as an outsider sees it."
            return _answer(request, campaign, notice)
    return _answer(request, campaign, "Nothing was saved.", error=True, form=form)


@login_required
@require_POST
def mirror_test(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = gm_or_403(request, pk)
    try:
        actions.mirror_test(campaign=campaign, actor=request.user)
    except ValidationError as error:
        return _answer(request, campaign, " ".join(error.messages), error=True)
    return _answer(request, campaign, "A test message is on its way: see below when it arrives.")


@login_required
@require_POST
def mirror_off(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = gm_or_403(request, pk)
    actions.mirror_off(campaign=campaign, actor=request.user)
    return _answer(request, campaign, "The mirror is off: nothing more goes to Discord.")


@login_required
@require_GET
def mirror_status(request: HttpRequest, pk: int) -> HttpResponse:
    """The section again (the page asks every few seconds while something is on its way);
    outside htmx, the settings page at the section."""
    campaign = gm_or_403(request, pk)
    if not request.htmx:
        return redirect(reverse("campaigns:settings", args=[campaign.pk]) + "#discord")
    context = {"campaign": campaign, **pages.settings_context(campaign)}
    return render(request, SECTION, context)
