"""A procedure's state: its entry in ``Scene.state[<view name>]``, read by ``procedure_state``
and written by ``store_state``, the one path every procedure uses (its actions, under the scene
row's lock: ``kit.scene_action``)."""

from __future__ import annotations

from typing import Any

from tabletop.scenes.models import Scene


def procedure_state(scene: Scene, name: str) -> dict[str, Any] | None:
    """A procedure's state (its view's ``Scene.state`` entry), or None."""
    value = (scene.state or {}).get(name)
    return dict(value) if isinstance(value, dict) else None


def store_state(scene: Scene, name: str, value: dict[str, Any] | None) -> None:
    """Write a procedure's state on the locked scene row (None removes it)."""
    state = dict(scene.state or {})
    if value is None:
        state.pop(name, None)
    else:
        state[name] = value
    scene.state = state
    scene.save(update_fields=["state"])
