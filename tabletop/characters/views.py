"""Character sheet pages: thin views that parse a form, call one action and redirect or render.

Non-members get 404 for every page here (a campaign's existence is not revealed); members
without the right get 403.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from tabletop.campaigns.models import Campaign
from tabletop.characters import actions
from tabletop.characters.forms import AdjustForm, SheetForms
from tabletop.characters.models import Character
from tabletop.characters.selectors import (
    can_adjust,
    can_edit,
    characters_visible_to,
    is_member,
)
from tabletop.characters.sheets import currency_stats, sheet_sections, spec_for


def _visible_character(request: HttpRequest, pk: int) -> Character:
    return get_object_or_404(characters_visible_to(user=request.user), pk=pk).sheet


def _editable_character(request: HttpRequest, pk: int) -> Character:
    character = _visible_character(request, pk)
    if not can_edit(character=character, user=request.user):
        raise PermissionDenied("Only the character's owner or the GM can change this sheet.")
    return character


def _sheet_context(request: HttpRequest, character: Character, adjust_form=None) -> dict:
    spec = spec_for(character.campaign)
    context = {
        "character": character,
        "campaign": character.campaign,
        "sections": sheet_sections(spec, character),
        "currencies": currency_stats(spec, character),
        "can_edit": can_edit(character=character, user=request.user),
        "can_adjust": can_adjust(character=character, user=request.user),
    }
    if context["can_adjust"] and spec.currencies:
        # Boxes start blank (blank = leave alone) so "add" never re-adds the current values.
        context["adjust_form"] = adjust_form or AdjustForm(spec=spec, character=character)
    return context


@login_required
@require_http_methods(["GET", "POST"])
def create(request: HttpRequest, campaign_pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=campaign_pk)
    if not is_member(campaign=campaign, user=request.user):
        raise Http404("No such campaign.")
    is_gm = campaign.gm_id == request.user.pk
    spec = spec_for(campaign)
    forms = SheetForms(spec=spec, is_gm=is_gm, data=request.POST or None)
    if request.method == "POST" and forms.is_valid():
        try:
            character = actions.character_create(
                campaign=campaign,
                actor=request.user,
                name=forms.name,
                # Players' forms have no role field: they make their own PC.
                role=forms.role or Character.Role.PC,
                sheet=forms.sheet(),
            )
        except ValidationError as error:
            forms.add_action_error(error)
        else:
            messages.success(request, f"{character.name} is ready to play.")
            return redirect("characters:detail", pk=character.pk)
    return render(
        request,
        "characters/form.html",
        {"forms": forms, "campaign": campaign, "spec": spec, "character": None},
    )


@login_required
@require_http_methods(["GET"])
def detail(request: HttpRequest, pk: int) -> HttpResponse:
    character = _visible_character(request, pk)
    return render(request, "characters/detail.html", _sheet_context(request, character))


@login_required
@require_http_methods(["GET", "POST"])
def edit(request: HttpRequest, pk: int) -> HttpResponse:
    character = _editable_character(request, pk)
    campaign = character.campaign
    is_gm = campaign.gm_id == request.user.pk
    spec = spec_for(campaign)
    forms = SheetForms(spec=spec, is_gm=is_gm, data=request.POST or None, character=character)
    if request.method == "POST" and forms.is_valid():
        try:
            actions.character_update(
                character=character,
                actor=request.user,
                sheet=forms.sheet(),
                name=forms.name,
                role=forms.role,
            )
        except ValidationError as error:
            forms.add_action_error(error)
        else:
            messages.success(request, "Sheet saved.")
            return redirect("characters:detail", pk=character.pk)
    return render(
        request,
        "characters/form.html",
        {"forms": forms, "campaign": campaign, "spec": spec, "character": character},
    )


@login_required
@require_http_methods(["GET", "POST"])
def delete(request: HttpRequest, pk: int) -> HttpResponse:
    character = _editable_character(request, pk)
    if request.method == "POST":
        campaign_pk = character.campaign_id
        name = character.name
        actions.character_delete(character=character, actor=request.user)
        messages.success(request, f"{name} was deleted.")
        return redirect("campaigns:detail", pk=campaign_pk)
    return render(request, "characters/confirm_delete.html", {"character": character})


@login_required
@require_POST
def adjust(request: HttpRequest, pk: int) -> HttpResponse:
    character = _visible_character(request, pk)
    if not can_adjust(character=character, user=request.user):
        raise PermissionDenied("Only the GM adjusts bennies, plot points and hits.")
    form = AdjustForm(request.POST, spec=spec_for(character.campaign), character=character)
    status = 200
    if form.is_valid():
        try:
            actions.character_adjust(
                character=character,
                actor=request.user,
                relative=form.relative,
                **form.changes(),
            )
        except ValidationError as error:
            form.add_action_error(error)
            status = 400
        else:
            if not request.htmx:
                messages.success(request, "Adjusted.")
                return redirect("characters:detail", pk=character.pk)
            form = None  # a fresh form showing the new values
    else:
        status = 400
    context = _sheet_context(request, character, adjust_form=form)
    if request.htmx:
        # htmx swaps 4xx responses only when told to; the partial carries the errors.
        return render(request, "characters/detail.html#currencies", context)
    return render(request, "characters/detail.html", context, status=status)
