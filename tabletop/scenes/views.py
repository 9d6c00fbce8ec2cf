"""Scene pages: thin views that read through selectors and write through actions."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from rules.core import RulesError
from tabletop.accounts.models import table_preferences
from tabletop.campaigns.models import Campaign
from tabletop.characters.models import Character
from tabletop.characters.saved_rolls import with_roller
from tabletop.notify.selectors import since_at
from tabletop.scenes import actions, ledger, ledger_text
from tabletop.scenes.audiences import Viewer
from tabletop.scenes.fragments import error_frame
from tabletop.scenes.models import Scene
from tabletop.scenes.procedures import render_procedure_views
from tabletop.scenes.render import render_card, visible_page
from tabletop.scenes.rollkinds import ROLL_KINDS
from tabletop.scenes.selectors import online_users, table_members, viewer_for
from tabletop.scenes.tools import play_context, tools_context


def _viewer_for(campaign: Campaign, request: HttpRequest) -> Viewer:
    """Members only: a non-member gets 404 so a campaign's existence isn't revealed."""
    viewer = viewer_for(campaign=campaign, user=request.user)
    if viewer is None:
        raise Http404("No such scene.")
    return viewer


@login_required
def scene_list(request: HttpRequest, campaign_pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=campaign_pk)
    viewer = _viewer_for(campaign, request)
    if request.method == "POST":
        try:
            scene = actions.scene_create(
                campaign=campaign, actor=request.user, name=request.POST.get("name", "")
            )
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
        else:
            return redirect("scenes:detail", pk=scene.pk)
    scenes = campaign.scenes.all()
    return render(
        request, "scenes/list.html", {"campaign": campaign, "scenes": scenes, "viewer": viewer}
    )


@login_required
def scene_detail(request: HttpRequest, pk: int) -> HttpResponse:
    scene = get_object_or_404(Scene.objects.select_related("campaign"), pk=pk)
    viewer = _viewer_for(scene.campaign, request)
    events, more = visible_page(scene=scene, viewer=viewer)
    cards = [render_card(event, vis, viewer, live=False) for event, vis in events]
    return render(
        request,
        "scenes/scene.html",
        {
            **tools_context(scene, viewer),
            "procedure_views": render_procedure_views(scene, viewer, oob=False),
            **play_context(scene, viewer),
            "cards": cards,
            "since_at": since_at(events, user=request.user, scene=scene),
            "last_seq": events[-1][0].seq if events else 0,
            "earlier_before": events[0][0].seq if more else None,
            "online": online_users(scene_id=scene.pk),
            "members": table_members(scene.campaign),
            "table_prefs": table_preferences(request.user),
        },
    )


@login_required
@require_POST
def scene_status(request: HttpRequest, pk: int, change: str) -> HttpResponse:
    scene = get_object_or_404(Scene.objects.select_related("campaign"), pk=pk)
    _viewer_for(scene.campaign, request)
    live = request.headers.get("HX-Request") == "true"  # the page's button (htmx)
    try:
        if change == "open":
            actions.scene_open(scene=scene, actor=request.user)
        else:
            actions.scene_close(scene=scene, actor=request.user)
    except ValidationError as exc:
        if live:
            return HttpResponse(error_frame(" ".join(exc.messages)))
        messages.error(request, " ".join(exc.messages))
    if live:
        # The scene's own frame brings its new status to every page on it, this one included.
        return HttpResponse(status=204)
    return redirect("scenes:detail", pk=scene.pk)


@login_required
@require_GET
def roll_odds(request: HttpRequest, pk: int) -> HttpResponse:
    """The exact odds of the roll the roll form describes (an htmx partial, updated on input)."""
    scene = get_object_or_404(Scene.objects.select_related("campaign"), pk=pk)
    _viewer_for(scene.campaign, request)
    kind = ROLL_KINDS.get(request.GET.get("roll_kind", ""))
    context: dict = {"odds": None, "error": ""}
    if kind is not None and kind.odds is not None:
        character = None
        character_id = request.GET.get("character")
        if character_id and character_id.isdigit():
            character = (
                Character.objects.of_campaign(scene.campaign).filter(pk=int(character_id)).first()
            )
        data = with_roller(request.GET.dict(), user=request.user, campaign=scene.campaign)
        try:
            if kind.against is not None and data.get("foe"):
                foe = actions.foe_for(scene, data["foe"])
                data.update(kind.facing(foe))
            context["odds"] = kind.odds(
                data=data,
                character=character,
                ruleset=scene.campaign.effective_ruleset(),
            )
        except (ValidationError, RulesError) as exc:
            context["error"] = (
                " ".join(exc.messages) if isinstance(exc, ValidationError) else str(exc)
            )
    return render(request, "scenes/_odds.html", context)


@login_required
@require_GET
def scene_earlier(request: HttpRequest, pk: int) -> HttpResponse:
    """Earlier cards of a long log (an htmx partial): the page before ``before``, filtered for
    this viewer like every other path, with the control for the page before that."""
    scene = get_object_or_404(Scene.objects.select_related("campaign"), pk=pk)
    viewer = _viewer_for(scene.campaign, request)
    raw = request.GET.get("before", "")
    if not raw.isdigit():
        return HttpResponse("Which cards? (before= a seq)", status=400)
    events, more = visible_page(scene=scene, viewer=viewer, before_seq=int(raw))
    cards = [render_card(event, vis, viewer, live=False) for event, vis in events]
    return render(
        request,
        "scenes/_earlier.html",
        {"scene": scene, "cards": cards, "earlier_before": events[0][0].seq if more else None},
    )


@login_required
@require_GET
def scene_ledger(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    """The member's session ledger as a file (JSON, Markdown or a self-verifying HTML page):
    the chain every member shares, and the details this member may see."""
    scene = get_object_or_404(Scene.objects.select_related("campaign"), pk=pk)
    viewer = _viewer_for(scene.campaign, request)
    doc = ledger.export(scene=scene, viewer=viewer, viewer_name=request.user.get_username())
    body, content_type = ledger_text.render(doc, fmt)
    response = HttpResponse(body, content_type=content_type)
    # A download, never a page: the HTML's own script runs only from the saved file.
    response["Content-Disposition"] = f'attachment; filename="{ledger_text.filename(scene, fmt)}"'
    return response
