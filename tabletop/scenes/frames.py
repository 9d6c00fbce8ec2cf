"""Rendering live fragments, and the small frames that are not scene events (errors, presence)."""

from __future__ import annotations

from typing import Any

from django.template import Context, engines
from django.template.loader import render_to_string


def render_fragment(template_name: str, context: dict[str, Any]) -> str:
    """A live fragment (a card, a tool) as ``render_to_string`` renders it, but with
    numbers printed as Python prints them instead of through the locale. The site speaks one
    language (en-gb, no thousands separator), where both print the same; the locale's lookup
    per number was a tenth of a character check's CPU (bench/README.md). ``context`` is used
    as it is, not copied (``events._Asked`` watches what the templates look up)."""
    template = engines["django"].get_template(template_name)
    return template.template.render(Context(context, autoescape=True, use_l10n=False))


def error_frame(message: str) -> str:
    return render_to_string("scenes/_error.html", {"message": message})


def presence_frame(*, scene_id: int, users: list, gm_id: int) -> str:
    return render_to_string(
        "scenes/_presence.html", {"users": users, "gm_id": gm_id, "scene_id": scene_id}
    )
