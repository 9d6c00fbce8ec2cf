"""A scene event as an outsider sees it, as a Discord embed.

Every embed is made from what ``visibility()`` gives a viewer with no role in the scene (the
reader passes it): a full card (a public roll: the speaker as in the log, the roll, its dice
and total, the outcome; a chat line; a spend), a stub (a hidden roll: who rolled, how, and its
commitment; never a total, a label or a character), or nothing. Players' text is escaped for
Discord's markdown; the emphasis the log itself shows (``*italic*``, ``**bold**``) is kept.
Each embed names its scene (its footer) and its time.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

from django.template.loader import render_to_string

from tabletop.scenes import kinds, spoken
from tabletop.scenes.audiences import FULL, STUB, Viewer, Visibility
from tabletop.scenes.cards import event_context
from tabletop.scenes.models import Scene, SceneEvent, roll_data
from tabletop.scenes.rollkinds import ROLL_KINDS
from tabletop.scenes.templatetags.chat import _BOLD, _ITALIC
from tabletop.scenes.templatetags.dice import TONES, outcome_label

#: The viewer the mirror reads as: no member, no GM.
OUTSIDER = Viewer(None, False)

#: Discord's limits (its embed object's): text longer is cut here, at a word.
TEXT_LIMIT = 1800  # of a description (Discord takes 4096; a message's embeds 6000 in all)
NAME_LIMIT = 200  # of an author's name or a field's value (256 and 1024)
DICE_LIMIT = 500  # of a roll's dice line (a system's dice card says much more)

#: Embed colours: an outcome's tone, a stub, a line of chat, the table's own moves.
COLOURS = {
    "great": 0x2E7D32,
    "good": 0x43A047,
    "partial": 0xF9A825,
    "bad": 0xE53935,
    "dire": 0xB71C1C,
    "plain": 0x546E7A,
    "stub": 0x99AAB5,
    "chat": 0x5865F2,
    "table": 0x8D6E63,
}

# Discord's markdown signs: each gets a backslash (Discord drops the backslash before any
# punctuation), so a player's "@everyone", "# heading", "[link](x)" or "||spoiler||" is text.
_SIGNS = re.compile(r"([\\*_~`|>#\-\[\]<@])")
# A web address stays as typed: Discord links it before any markdown (a backslash would break it).
_URL = re.compile(r"https?://[^\s<>]+", re.IGNORECASE)


def cut(text: str, limit: int) -> str:
    """``text`` no longer than ``limit``, cut at a word with "…" (before any escaping, so a cut
    never leaves half an escape)."""
    text = str(text)
    if len(text) <= limit:
        return text
    return text[: limit - 1].rsplit(" ", 1)[0] + "…"


def escape(text: str) -> str:
    """Plain text as Discord shows it, every markdown sign escaped (web addresses as typed)."""
    pieces, end = [], 0
    for match in _URL.finditer(text):
        pieces += [_SIGNS.sub(r"\\\1", text[end : match.start()]), match.group(0)]
        end = match.end()
    pieces.append(_SIGNS.sub(r"\\\1", text[end:]))
    return "".join(pieces)


def _emphasised(text: str, pattern: re.Pattern[str], marker: str, inner: Any) -> str:
    pieces, end = [], 0
    for match in pattern.finditer(text):
        pieces += [inner(text[end : match.start()]), marker + inner(match.group(1)) + marker]
        end = match.end()
    pieces.append(inner(text[end:]))
    return "".join(pieces)


def said(text: str) -> str:
    """A line a player typed, for Discord: escaped, with the log's own ``**bold**`` and
    ``*italic*`` kept as Discord's (each on its line, as the log pairs them)."""

    def italic(part: str) -> str:
        return _emphasised(part, _ITALIC, "*", escape)

    def line(part: str) -> str:
        return _emphasised(part, _BOLD, "**", italic)

    return "\n".join(line(part) for part in cut(text, TEXT_LIMIT).split("\n"))


def _base(event: SceneEvent, scene: Scene, colour: str) -> dict[str, Any]:
    return {
        "color": COLOURS[colour],
        "footer": {"text": cut(f"{scene.name} · #{event.seq}", NAME_LIMIT)},
        "timestamp": event.created_at.isoformat(),
    }


def _author(name: str) -> dict[str, str]:
    # An author's name is shown as written: Discord reads no markdown there.
    return {"name": cut(" ".join(str(name).split()), NAME_LIMIT) or "Someone"}


# --- chat ----------------------------------------------------------------------------------------


def chat(event: SceneEvent, scene: Scene) -> dict[str, Any]:
    """A line said to the table (a whisper never reaches here: an outsider gets nothing)."""
    data = event.public
    speaker = str(data.get("speaker", ""))
    voice = data.get("voice")
    embed = _base(event, scene, "chat")
    text = said(str(data.get("text", "")))
    if voice == "narration":
        embed["author"] = _author("The GM narrates")
        embed["description"] = text
    elif data.get("emote"):
        embed["description"] = f"**{escape(cut(speaker, NAME_LIMIT))}** {text}"
    else:
        by = data.get("by")
        name = f"{speaker} ({by})" if by else speaker
        embed["author"] = _author(f"{name} (OOC)" if voice == "ooc" else name)
        embed["description"] = text
    return embed


# --- rolls ---------------------------------------------------------------------------------------


def _who(data: dict[str, Any]) -> str:
    """Who rolled, as the card names them: the name it was made as, "as" the character."""
    who = str(data.get("speaker") or data.get("roller") or "Someone")
    character = data.get("character")
    if character and character not in (data.get("roller"), data.get("speaker")):
        who = f"{who} as {character}"
    return who


def _dice(event: SceneEvent, data: dict[str, Any]) -> str:
    """The roll's dice as its card shows them: the dice language's breakdown ("1d20 (13) + 5 =
    18"), or the words of its kind's dice card on one line (a system's own dice)."""
    result = data.get("result")
    breakdown = result.get("breakdown") if isinstance(result, dict) else None
    if isinstance(breakdown, str) and breakdown:
        return breakdown
    kind = ROLL_KINDS.get(str(data.get("roll_kind", "")))
    if kind is None or not kind.card:
        return ""
    card = render_to_string(kind.card, event_context(event, FULL, OUTSIDER))
    return " · ".join(_text_of(card, spaced=True))


def roll(event: SceneEvent, scene: Scene) -> dict[str, Any]:
    """A roll the outsider sees in full (in the open, or revealed): who, the roll, its dice,
    the card's summary and total, the outcome."""
    data = roll_data(event)
    outcome = outcome_label(data)
    embed = _base(event, scene, TONES.get(str(data.get("outcome", "")), "plain"))
    embed["author"] = _author(_who(data))
    title = ": ".join(str(p) for p in (data.get("label"), data.get("title")) if p)
    summary, dice = str(data.get("summary", "")), _dice(event, data)
    lines = [f"**{escape(cut(title, NAME_LIMIT))}**" if title else ""]
    lines.append(escape(cut(dice, DICE_LIMIT)))
    if summary not in dice:
        lines.append(escape(cut(summary, NAME_LIMIT)))
    embed["description"] = "\n".join(line for line in lines if line) or "rolled"
    fields = []
    total = spoken.result_words(summary)
    if total:
        fields.append({"name": "Total", "value": escape(cut(total, NAME_LIMIT)), "inline": True})
    if outcome:
        fields.append(
            {"name": "Outcome", "value": escape(cut(outcome, NAME_LIMIT)), "inline": True}
        )
    if fields:
        embed["fields"] = fields
    return embed


_HIDDEN_HOW = {"blind": "blind: only the GM sees the result", "gm": "privately to the GM"}


def stub(event: SceneEvent, scene: Scene) -> dict[str, Any]:
    """A hidden roll as an outsider knows it: who rolled, how, and its commitment. Nothing
    else: its public data holds nothing else (the name it was made as is in its secret)."""
    roller = str(event.public.get("roller") or "Someone")
    how = _HIDDEN_HOW.get(str(event.public.get("mode", "")), "hidden")
    embed = _base(event, scene, "stub")
    embed["author"] = _author(roller)
    embed["description"] = f"{escape(cut(roller, NAME_LIMIT))} made a hidden roll ({how})."
    if event.commitment:
        embed["fields"] = [{"name": "Commitment", "value": f"`{event.commitment}`"}]
    return embed


def revealed(event: SceneEvent, scene: Scene) -> dict[str, Any]:
    """A hidden roll once the GM revealed it: its full card, saying so, with the commitment
    its stub carried (the scene's ledger opens it)."""
    embed = roll(event, scene)
    fields = embed.setdefault("fields", [])
    fields.append({"name": "Revealed", "value": "by the GM", "inline": True})
    if event.commitment:
        fields.append({"name": "Commitment", "value": f"`{event.commitment}`"})
    return embed


# --- the table's other moves: the card's own words ------------------------------------------------


_CLOSE_UP = re.compile(r"\s+([.,;:!?)])|(?<=\()\s+")


class _CardText(HTMLParser):
    """A card's words as an outsider reads them: its controls (forms, buttons, timers) and
    what the page keeps for one member (``data-only-for``) left out."""

    SKIPPED = frozenset({"form", "button", "progress", "script", "style", "template", "svg"})
    VOID = frozenset({"br", "input", "img", "hr", "meta", "link", "wbr", "source"})
    BLOCKS = frozenset({"p", "li", "header", "footer", "blockquote", "div", "ul", "ol", "br"})

    def __init__(self, *, spaced: bool = False) -> None:
        super().__init__(convert_charrefs=True)
        self.words: list[str] = []
        self.skipping = 0
        #: a space at every tag (a dice card's faces are elements side by side, not words)
        self.spaced = spaced

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.spaced and not self.skipping:
            self.words.append(" ")
        if tag in self.VOID:
            if tag == "br" and not self.skipping:
                self.words.append("\n")
            return
        named = dict(attrs)
        if (
            self.skipping
            or tag in self.SKIPPED
            or "data-only-for" in named
            or "hidden" in named
            or named.get("role") == "timer"
            or "countdown" in (named.get("class") or "")
        ):
            self.skipping += 1
        elif tag in self.BLOCKS:
            self.words.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if self.spaced and not self.skipping:
            self.words.append(" ")
        if tag in self.VOID:
            return
        if self.skipping:
            self.skipping -= 1
        elif tag in self.BLOCKS:
            self.words.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.words.append(data)

    def lines(self) -> list[str]:
        lines = (" ".join(line.split()) for line in "".join(self.words).split("\n"))
        if self.spaced:  # no space the tags made before a stop or after a bracket
            lines = (_CLOSE_UP.sub(r"\1", line) for line in lines)
        return [line for line in lines if line]


def _text_of(html: str, *, spaced: bool = False) -> list[str]:
    parser = _CardText(spaced=spaced)
    parser.feed(html)
    parser.close()
    return parser.lines()


def card_text(event: SceneEvent) -> str:
    """The words of the event's card as the log shows it to an outsider."""
    kind = kinds.get(event.kind)
    return "\n".join(
        _text_of(render_to_string(kind.template, event_context(event, FULL, OUTSIDER)))
    )


def table_move(event: SceneEvent, scene: Scene) -> dict[str, Any] | None:
    """A spend, an award, an approval, a scene opened or closed: the card's words."""
    text = card_text(event)
    if not text:
        return None
    embed = _base(event, scene, "table")
    embed["description"] = escape(cut(text, TEXT_LIMIT))
    return embed


def of(event: SceneEvent, vis: Visibility, scene: Scene) -> dict[str, Any] | None:
    """The embed an outsider gets of ``event`` (``vis``: what ``visibility`` gave them)."""
    if vis == STUB:
        return stub(event, scene) if event.kind == "roll" else None
    if vis != FULL:
        return None
    if event.kind == "chat":
        return chat(event, scene)
    if event.kind == "roll":
        # Read after its reveal (the mirror was behind): its full card says so already.
        return revealed(event, scene) if event.revealed_at is not None else roll(event, scene)
    return table_move(event, scene)


def size(embed: dict[str, Any]) -> int:
    """An embed's characters as Discord counts them against a message's 6,000."""
    count = len(embed.get("description", "")) + len(embed.get("title", ""))
    count += len(embed.get("author", {}).get("name", ""))
    count += len(embed.get("footer", {}).get("text", ""))
    for item in embed.get("fields", ()):
        count += len(item.get("name", "")) + len(item.get("value", ""))
    return count
