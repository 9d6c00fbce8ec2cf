"""After a restore: every scene's ledger head and newest seq as the manifest says, and every
ledger's chain walked again (each entry's hash recomputed, each ``prev`` the entry before)."""

from __future__ import annotations

from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections

from tabletop.operating import schema
from tabletop.scenes import ledger


def _chain_problem(events: Any, scene_id: int, head: str) -> str | None:
    prev = ledger.GENESIS
    rows = events.filter(scene_id=scene_id, ledger__isnull=False).order_by("seq")
    for seq, entry, entry_hash in rows.values_list("seq", "ledger", "ledger_hash").iterator():
        if entry.get("prev") != prev or ledger.entry_hash(entry) != entry_hash:
            return f"its ledger breaks at seq {seq}"
        prev = entry_hash
    if head and prev != head:
        return "its ledger's newest entry is not its head"
    return None


def problems(manifest: dict[str, Any], alias: str = DEFAULT_DB_ALIAS) -> list[str]:
    """Each scene whose head, newest seq or chain is not what the manifest says ([] if none)."""
    apps = schema.apps_at(connections[alias], manifest["migrations"])
    expected = manifest["scenes"]
    if not expected:
        return []
    scenes = apps.get_model("scenes", "Scene")._base_manager.using(alias)
    events = apps.get_model("scenes", "SceneEvent")._base_manager.using(alias)
    chained = {f.attname for f in events.model._meta.concrete_fields} >= {"ledger", "ledger_hash"}
    found = {
        str(pk): {"seq": seq, "head": head}
        for pk, seq, head in scenes.values_list("pk", "last_seq", "ledger_head")
    }
    wrong = []
    for scene_id, want in sorted(expected.items(), key=lambda item: int(item[0])):
        have = found.get(scene_id)
        if have != want:
            wrong.append(f"scene {scene_id}: head {have} but the manifest says {want}")
        elif chained and (problem := _chain_problem(events, int(scene_id), want["head"])):
            wrong.append(f"scene {scene_id}: {problem}")
    extra = sorted(set(found) - set(expected), key=int)
    wrong.extend(f"scene {scene_id}: not in the manifest" for scene_id in extra)
    return wrong
