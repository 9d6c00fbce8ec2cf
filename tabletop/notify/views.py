"""Notification pages: thin views that read through selectors and write through actions."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from tabletop.campaigns.models import Campaign
from tabletop.campaigns.selectors import membership_of
from tabletop.notify import actions, selectors
from tabletop.notify.models import MailChoice
from tabletop.scenes.models import Scene


@login_required
@require_POST
def seen(request: HttpRequest, scene_pk: int) -> HttpResponse:
    """The scene page says how far it has shown the scene, and whether it is visible."""
    scene = get_object_or_404(Scene.objects.select_related("campaign"), pk=scene_pk)
    if membership_of(campaign=scene.campaign, user=request.user) is None:
        raise Http404("No such scene.")
    try:
        mark = actions.mark_seen(
            scene=scene,
            user=request.user,
            seq=request.POST.get("seq"),
            visible=request.POST.get("visible") == "1",
        )
    except ValidationError as error:
        return JsonResponse({"error": " ".join(error.messages)}, status=400)
    # The header's count on the scene page follows what the page has shown (static/js/seen.js).
    return JsonResponse(
        {"seq": mark.seq, "unseen": selectors.unseen_notifications(user=request.user)}
    )


@login_required
def notifications(request: HttpRequest) -> HttpResponse:
    """What reached the member lately, newest first, each linked to its scene."""
    notices = selectors.notifications_for(user=request.user)
    return render(request, "notify/list.html", {"notices": notices})


@login_required
@require_http_methods(["GET", "POST"])
def campaign_mail(request: HttpRequest, campaign_pk: int) -> HttpResponse:
    """The member's mail choice for one campaign."""
    campaign = get_object_or_404(Campaign, pk=campaign_pk)
    if membership_of(campaign=campaign, user=request.user) is None:
        raise Http404("No such campaign.")
    if request.method == "POST":
        try:
            actions.choose_mail(
                campaign=campaign, user=request.user, level=request.POST.get("level", "")
            )
        except ValidationError as error:
            messages.error(request, " ".join(error.messages))
        else:
            messages.success(request, "Saved: your mail from this campaign follows your choice.")
            return redirect("notify:campaign", campaign_pk=campaign.pk)
    return render(
        request,
        "notify/campaign.html",
        {
            "campaign": campaign,
            "level": selectors.mail_level(user=request.user, campaign=campaign),
            "levels": MailChoice.Level.choices,
        },
    )


@csrf_exempt  # RFC 8058: the mail client POSTs it, with no session and no form
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """One-click unsubscribe: a POST stops the campaign's mail for the member the token
    names (no login); a GET only shows the button (mail scanners fetch links)."""
    if request.method == "GET":
        return render(request, "notify/unsubscribe.html", {"token": token})
    try:
        campaign = actions.unsubscribe(token=token)
    except ValidationError as error:
        return render(
            request, "notify/unsubscribe.html", {"error": " ".join(error.messages)}, status=400
        )
    return render(request, "notify/unsubscribe.html", {"done": campaign})
