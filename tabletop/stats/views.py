"""The dice statistics pages of a campaign and of a scene: members only."""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from tabletop.campaigns.models import Campaign
from tabletop.scenes.audiences import Viewer
from tabletop.scenes.models import Scene, SceneEvent
from tabletop.scenes.selectors import viewer_for
from tabletop.stats import selectors
from tabletop.stats.stats import chart_data, summarise


def _viewer_for(campaign: Campaign, request: HttpRequest) -> Viewer:
    """Members only; anyone else gets a 404, as on every campaign page."""
    viewer = viewer_for(campaign=campaign, user=request.user)
    if viewer is None:
        raise Http404("No such campaign.")
    return viewer


def _render(
    request: HttpRequest,
    *,
    campaign: Campaign,
    scene: Scene | None,
    events: Iterable[SceneEvent],
    viewer: Viewer,
) -> HttpResponse:
    rolls = selectors.visible_rolls(events, viewer)
    sections = summarise(rolls, about=selectors.about_kind)
    kinds = [kind for section in sections[:1] for kind in section.kinds]
    flagged = [(s.roller, k) for s in sections for k in s.flagged]
    context = {
        "campaign": campaign,
        "scene": scene,
        "viewer": viewer,
        "count": len(rolls),
        "sections": sections,
        "flagged": flagged,
        "tested": any(k.fit is not None for k in kinds),
        "charts": chart_data(sections),
    }
    return render(request, "stats/stats.html", context)


@login_required
@require_GET
def campaign_stats(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=pk)
    viewer = _viewer_for(campaign, request)
    events = selectors.roll_events(scene__campaign=campaign)
    return _render(request, campaign=campaign, scene=None, events=events, viewer=viewer)


@login_required
@require_GET
def scene_stats(request: HttpRequest, pk: int) -> HttpResponse:
    scene = get_object_or_404(Scene.objects.select_related("campaign"), pk=pk)
    viewer = _viewer_for(scene.campaign, request)
    events = selectors.roll_events(scene=scene)
    return _render(request, campaign=scene.campaign, scene=scene, events=events, viewer=viewer)
