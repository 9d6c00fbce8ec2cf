"""Render: what each viewer gets of a recorded event: the one place that decides it, with
``audiences.visibility``. A live frame (``render_frame``: the card, the cards it changed, the
tools and procedure views it made stale, the ledger head), a card alone (``render_card``), and
the pages and replays a viewer reads (``visible_page``; a replay's ``every_event``). ``Renders``
shares one broadcast's renders between viewers who would get the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop.characters.models import Character, sheet_joins, sheet_model
from tabletop.scenes import fastpath, kinds
from tabletop.scenes.audiences import Viewer, Visibility, visibility
from tabletop.scenes.cards import event_context, for_viewer
from tabletop.scenes.fragments import render_fragment
from tabletop.scenes.models import Scene, SceneEvent, with_sheet
from tabletop.scenes.procedures import render_procedure_views
from tabletop.scenes.tools import (
    SCENE_STATUS,
    TOOL_ROWS,
    TOOLS,
    campaign_characters,
    render_character_row,
    render_hidden_entry,
    render_scene_status,
    render_tool,
    stale_tools_and_views,
    tools_for,
)


def render_card(
    event: SceneEvent, vis: Visibility, viewer: Viewer, *, live: bool, oob: bool = False
) -> str:
    """One card for one viewer; ``oob``: swapped in place of the card already on the page."""
    return _render_card(event, vis, viewer, live=live, oob=oob)[0]


#: The context keys in which two viewers with the same visibility of an event differ.
VIEWER_KEYS = frozenset({"viewer_is_gm", "is_actor", "for_viewer"})


class _Asked(dict):  # type: ignore[type-arg]
    """A card's context that remembers which viewer keys (``VIEWER_KEYS``) its templates
    looked up. Django's context asks ``key in d`` before every ``d[key]``; anything that
    copies or walks the whole dict counts as asking for all of them (the safe side)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.asked: set[str] = set()

    def __contains__(self, key: object) -> bool:
        if key in VIEWER_KEYS:
            self.asked.add(key)  # type: ignore[arg-type]
        return dict.__contains__(self, key)

    def __getitem__(self, key: str) -> Any:
        if key in VIEWER_KEYS:
            self.asked.add(key)
        return dict.__getitem__(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        if key in VIEWER_KEYS:
            self.asked.add(key)
        return dict.get(self, key, default)

    def _all(self) -> None:
        self.asked |= VIEWER_KEYS

    def __iter__(self):  # type: ignore[no-untyped-def]
        self._all()
        return dict.__iter__(self)

    def keys(self):  # type: ignore[no-untyped-def]
        self._all()
        return dict.keys(self)

    def items(self):  # type: ignore[no-untyped-def]
        self._all()
        return dict.items(self)

    def values(self):  # type: ignore[no-untyped-def]
        self._all()
        return dict.values(self)

    def copy(self) -> dict[str, Any]:
        self._all()
        return dict(dict.items(self))


def _render_card(
    event: SceneEvent, vis: Visibility, viewer: Viewer, *, live: bool, oob: bool
) -> tuple[str, set[str]]:
    """The card and the viewer keys its templates looked up (the rest of its context is the
    event's, the same for every viewer with this visibility)."""
    if vis is None:
        return "", set()
    ctx = _Asked(event_context(event, vis, viewer))
    ctx["live"] = live
    kind = kinds.get(event.kind)
    ctx["card_template"] = kind.template
    ctx["spoken_template"] = kind.spoken
    ctx["oob"] = oob
    return render_fragment("scenes/_event.html", ctx), ctx.asked


class Renders:
    """What one broadcast has rendered: a card or tool is rendered once per output that
    can differ, and reused for every other viewer who would get the same bytes.

    A card is a function of the event, the viewer's visibility of it and the viewer keys its
    templates looked up (``_Asked``): a public card that never asks who is looking is rendered
    once for the GM, its actor and everyone else. Tools depend on whether the viewer is
    the GM, nothing more, and the Party tool not even on that (``tools.render_tool``)."""

    def __init__(self, scene: Scene, *, sheets: Mapping[int, Character] | None = None) -> None:
        self._scene = scene
        self._cards: dict[tuple[Any, ...], list[tuple[dict[str, bool], str]]] = {}
        self._tools: dict[tuple[Any, ...], str] = {}
        self._cast: list[Character] | None = None
        self._heads: dict[str, str] = {}
        # Sheets as the event's transaction committed them (``record.note_sheet``), and those
        # read since.
        self._sheets: dict[int, Character | None] = dict(sheets or {})

    def card(
        self, event: SceneEvent, vis: Visibility, viewer: Viewer, *, live: bool, oob: bool = False
    ) -> str:
        if vis is None:
            return ""
        values = {
            "viewer_is_gm": viewer.is_gm,
            "is_actor": viewer.user_id is not None and viewer.user_id == event.actor_id,
            "for_viewer": for_viewer(event, vis, viewer),
        }
        key = (event.pk, vis, live, oob)
        for asked, html in self._cards.get(key, ()):
            if all(values[name] == value for name, value in asked.items()):
                return html
        html, asked_names = _render_card(event, vis, viewer, live=live, oob=oob)
        self._cards.setdefault(key, []).append(({n: values[n] for n in asked_names}, html))
        return html

    def tools(self, event: SceneEvent, viewer: Viewer, wanted: frozenset[str]) -> str:
        html = ""
        for name in tools_for(wanted, is_gm=viewer.is_gm):
            # The Party tool (and its cells) are everyone's, the GM's included.
            key = (name, viewer.is_gm and name not in ("party", "party-row"))
            if key not in self._tools:
                if name == "hidden":  # a hidden roll joined the list (kinds._roll_stale)
                    self._tools[key] = render_hidden_entry(event)
                elif name in TOOL_ROWS:  # only the event's character's sheet changed
                    self._tools[key] = render_character_row(event.scene, name, self._sheet(event))
                else:
                    self._tools[key] = render_tool(
                        event.scene, name, is_gm=viewer.is_gm, oob=True, characters=self._characters
                    )
            html += self._tools[key]
        return html

    def scene_status(self, viewer: Viewer) -> str:
        """What of the page follows the scene's status, for this viewer alone (their own
        characters and sheets): rendered once per viewer, read as the event left the scene."""
        key = (SCENE_STATUS, viewer)
        if key not in self._tools:
            self._tools[key] = render_scene_status(self._scene, viewer)
        return self._tools[key]

    def ledger_head(self, head: str) -> str:
        """The ledger head's swap: the same for every member, rendered once."""
        if head not in self._heads:
            context = {"ledger_head": head, "oob": True}
            self._heads[head] = render_fragment("scenes/_ledger_head.html#ledger-head", context)
        return self._heads[head]

    def _sheet(self, event: SceneEvent) -> Character | None:
        # The event's character as committed, read once for the players' cells and the GM's
        # (not at all when the action noted the copy it locked and saved: ``note_sheet``).
        if event.character_id is None:
            return None
        if event.character_id not in self._sheets:
            self._sheets[event.character_id] = fastpath.character_in_campaign(
                sheet_model(self._scene.campaign.system),
                event.character_id,
                self._scene.campaign_id,
            )
        return self._sheets[event.character_id]

    def _characters(self) -> list[Character]:
        # The campaign's characters, read once for the GM's tools and the players'.
        if self._cast is None:
            self._cast = campaign_characters(self._scene)
        return self._cast


def render_frame(
    event: SceneEvent, viewer: Viewer, *, live: bool, renders: Renders | None = None
) -> str:
    """The HTML frame one viewer class receives for an event ('' when it may see nothing).

    The new card is appended to the log; a parent card it changed (a spend, a reveal) is
    re-rendered in place; kinds may add their own out-of-band swaps (dashboards, procedure views).
    ``renders``: a broadcast's shared renders (every viewer's frame of one event).
    """
    vis = visibility(event, viewer)
    if vis is None:
        return ""
    renders = renders or Renders(event.scene)
    parts = [
        '<div id="scene-log" hx-swap-oob="beforeend">',
        renders.card(event, vis, viewer, live=live),
        "</div>",
    ]
    for changed in _changed_cards(event):
        changed_vis = visibility(changed, viewer)
        if changed_vis is not None:
            parts.append(renders.card(changed, changed_vis, viewer, live=False, oob=True))
    stale = stale_tools_and_views(event)
    if live and stale:
        side = frozenset(stale & TOOLS)
        if side:
            parts.append(renders.tools(event, viewer, side))
        if SCENE_STATUS in stale:
            parts.append(renders.scene_status(viewer))
        procedures = stale - TOOLS - {SCENE_STATUS}
        if procedures:
            event.scene.refresh_from_db(fields=["state"])
            parts += render_procedure_views(event.scene, viewer, oob=True, only=procedures)
    if event.ledger_hash:
        # A chain event moves the ledger head: every member's page shows the same new one.
        parts.append(renders.ledger_head(event.ledger_hash))
    return "".join(parts)


def _changed_cards(event: SceneEvent) -> list[SceneEvent]:
    """Earlier cards this event changed: its parent (a spend's roll) and any it names."""
    changed = [event.parent] if event.parent is not None else []
    seqs = [s for s in event.public.get("refresh", []) if isinstance(s, int)]
    if seqs:
        changed += list(
            SceneEvent.objects.filter(scene_id=event.scene_id, seq__in=seqs)
            .exclude(pk=event.parent_id)
            .select_related(*sheet_joins(event.scene.campaign.system))
        )
    for card in changed:
        card.scene = event.scene  # the same scene, already read
        with_sheet(card)
    return changed


#: How many cards the scene page shows at first; earlier ones load on demand.
LOG_PAGE = 200


def _with_sheets(scene: Scene) -> tuple[str, ...]:
    # The event's character and its parent's (a spend's roll), each with its sheet: the cards
    # read both, with no query per card.
    system = scene.campaign.system
    return (*sheet_joins(system), *sheet_joins(system, character="parent__character"))


def visible_page(
    *, scene: Scene, viewer: Viewer, before_seq: int | None = None, limit: int = LOG_PAGE
) -> tuple[list[tuple[SceneEvent, Visibility]], bool]:
    """The last ``limit`` events the viewer may see (before ``before_seq``), in order, and
    whether any visible one is earlier still. Reads newest first in chunks, so a long scene
    costs what its last page costs, not its whole log."""
    # Cards never show the ledger entry itself (the exports do): not read, not decoded.
    events = (
        SceneEvent.objects.filter(scene=scene)
        .select_related("actor", *_with_sheets(scene), "parent")
        .defer("ledger", "parent__ledger")
    )
    if before_seq is not None:
        events = events.filter(seq__lt=before_seq)
    found: list[tuple[SceneEvent, Visibility]] = []
    below: int | None = None
    while True:
        chunk = events if below is None else events.filter(seq__lt=below)
        batch = list(chunk.order_by("-seq")[: limit * 2])
        for event in batch:
            event.scene = scene  # the cards ask for the campaign's system: no query per card
            with_sheet(event)
            vis = visibility(event, viewer)
            if vis is None:
                continue
            if len(found) == limit:
                return found[::-1], True
            found.append((event, vis))
        if len(batch) < limit * 2:
            return found[::-1], False
        below = batch[-1].seq


def every_event(*, scene: Scene, after_seq: int = 0) -> list[SceneEvent]:
    """Every event of the scene after ``after_seq``, in order, read for its cards (whoever may
    see them: ``visibility`` decides per viewer)."""
    events = (
        SceneEvent.objects.filter(scene=scene, seq__gt=after_seq)
        .select_related("actor", *_with_sheets(scene), "parent")
        .defer("ledger", "parent__ledger")
        .order_by("seq")
    )
    out = []
    for event in events:
        event.scene = scene  # the cards ask for the campaign's system: no query per card
        out.append(with_sheet(event))
    return out
