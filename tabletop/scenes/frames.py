"""Small frames that are not scene events: errors and presence."""

from __future__ import annotations

from django.template.loader import render_to_string


def error_frame(message: str) -> str:
    return render_to_string("scenes/_error.html", {"message": message})


def presence_frame(*, scene_id: int, users: list, gm_id: int) -> str:
    return render_to_string(
        "scenes/_presence.html", {"users": users, "gm_id": gm_id, "scene_id": scene_id}
    )
