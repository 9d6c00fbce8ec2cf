"""Character sheet pages: thin views that parse a form, call one action and redirect or render.

Non-members get 404 for every page here (a campaign's existence is not revealed); members
without the right get 403.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from tabletop.campaigns.models import Campaign
from tabletop.characters import actions, saved_rolls
from tabletop.characters.forms import AdjustForm, SavedRollForm, SheetForms
from tabletop.characters.models import Character, SavedRoll
from tabletop.characters.selectors import (
    can_adjust,
    can_edit,
    characters_visible_to,
    is_member,
)
from tabletop.characters.sheets import (
    adjust_refusal,
    currency_stats,
    sheet_sections,
    spec_for,
)


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
        "rolls_box": saved_rolls_box(
            user=request.user, campaign=character.campaign, character=character
        ),
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
    spec = spec_for(character.campaign)
    if not can_adjust(character=character, user=request.user):
        raise PermissionDenied(adjust_refusal(spec))
    form = AdjustForm(request.POST, spec=spec, character=character)
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


# --- saved rolls: a character's on its page, a member's own on the campaign's -------------------


def saved_rolls_box(
    *,
    user: Any,
    campaign: Campaign,
    character: Character | None = None,
    added: SavedRollForm | None = None,
    changed: tuple[int, SavedRollForm] | None = None,
) -> dict[str, Any]:
    """One list of saved rolls with its forms (characters/_saved_rolls.html): ``character``'s,
    or ``user``'s own in ``campaign``. ``added``/``changed``: a form sent back with its errors."""
    if character is not None:
        rolls = list(SavedRoll.objects.filter(character=character))
        box = {
            "id": f"saved-rolls-{character.pk}",
            "title": "Saved rolls",
            "help": f"{character.name}'s rolls, as buttons on the scene's Sheet tool and by "
            "name: /r longsword.",
            "add_url": reverse("characters:saved_roll_add", args=[character.pk]),
            "can_change": can_edit(character=character, user=user),
        }
    else:
        rolls = list(saved_rolls.own_rolls(campaign=campaign, user=user))
        box = {
            "id": "saved-rolls-own",
            "title": "Your rolls",
            "help": "Yours alone, whichever character you play: on the Sheet tool and by name "
            "(/r name; your character's rolls are looked for first).",
            "add_url": reverse("characters:own_roll_add", args=[campaign.pk]),
            "can_change": True,
        }
    rows = []
    for saved in rolls:
        form = changed[1] if changed and changed[0] == saved.pk else None
        initial = {"name": saved.name, "expression": saved.expression}
        rows.append((saved, form or SavedRollForm(prefix=f"roll-{saved.pk}", initial=initial)))
    return {**box, "rolls": rows, "add_form": added or SavedRollForm(prefix="new")}


def _saved_rolls_answer(
    request: HttpRequest, campaign: Campaign, character: Character | None, **sent: Any
) -> HttpResponse:
    """htmx: the list again, with the form sent back when it failed; else back to its page."""
    if request.htmx:
        box = saved_rolls_box(user=request.user, campaign=campaign, character=character, **sent)
        return render(request, "characters/_saved_rolls.html", {"box": box})
    failed = [f for f in [sent.get("added"), *(sent.get("changed") or ())[1:]] if f]
    for form in failed:
        messages.error(request, " ".join(e for errors in form.errors.values() for e in errors))
    if not failed:
        messages.success(request, "Saved rolls updated.")
    if character is not None:
        return redirect("characters:detail", pk=character.pk)
    return redirect("campaigns:detail", pk=campaign.pk)


@login_required
@require_POST
def saved_roll_add(
    request: HttpRequest, pk: int | None = None, campaign_pk: int | None = None
) -> HttpResponse:
    character = _visible_character(request, pk) if pk is not None else None
    campaign = character.campaign if character else get_object_or_404(Campaign, pk=campaign_pk)
    if not is_member(campaign=campaign, user=request.user):
        raise Http404("No such campaign.")
    if character is not None and not can_edit(character=character, user=request.user):
        raise PermissionDenied("Only the character's owner or the GM saves its rolls.")
    form: SavedRollForm | None = SavedRollForm(request.POST, prefix="new")
    if form.is_valid():
        try:
            saved_rolls.saved_roll_add(
                actor=request.user,
                campaign=campaign,
                character=character,
                name=form.cleaned_data["name"],
                dice=form.cleaned_data["expression"],
            )
        except ValidationError as error:
            form.add_error(None, error)
        else:
            form = None
    return _saved_rolls_answer(request, campaign, character, added=form)


@login_required
@require_POST
def saved_roll_change(request: HttpRequest, roll_pk: int, delete: bool = False) -> HttpResponse:
    """Rename a saved roll or change its dice; or delete it."""
    saved = get_object_or_404(SavedRoll.objects.select_related("campaign"), pk=roll_pk)
    if not is_member(campaign=saved.campaign, user=request.user):
        raise Http404("No such roll.")
    if not saved_rolls.can_change(saved=saved, user=request.user):
        raise PermissionDenied("That roll is not yours to change.")  # whatever was sent
    character = saved.character.sheet if saved.character_id else None
    if delete:
        saved_rolls.saved_roll_delete(actor=request.user, saved=saved)
        return _saved_rolls_answer(request, saved.campaign, character)
    form: SavedRollForm | None = SavedRollForm(request.POST, prefix=f"roll-{saved.pk}")
    if form.is_valid():
        try:
            saved_rolls.saved_roll_update(
                actor=request.user,
                saved=saved,
                name=form.cleaned_data["name"],
                dice=form.cleaned_data["expression"],
            )
        except ValidationError as error:
            form.add_error(None, error)
        else:
            form = None
    changed = (saved.pk, form) if form is not None else None
    return _saved_rolls_answer(request, saved.campaign, character, changed=changed)
