"""Views of the site as a whole, belonging to no app: the page a failed CSRF check shows."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.http import url_has_allowed_host_and_scheme


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW: a form posted without a valid token, in the site's layout.

    What a visitor meets is nearly always a form left open past its session, or cookies cleared
    since the page loaded: Django's own page (unstyled, about the site's code) says nothing a
    player can act on. This one says to reload and try again; the response carries a fresh CSRF
    cookie (the middleware's), so the reloaded form posts. The link back is the page the form was
    on (the Referer, when it is this site's), else the start page. Django's reason is shown only
    with DEBUG on.
    """
    back = request.headers.get("Referer", "")
    if not url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        back = ""
    context = {"back": back, "reason": reason if settings.DEBUG else ""}
    return render(request, "403_csrf.html", context, status=403)
