"""Chat text on a card: escaped first, then a little emphasis (``*italic*``, ``**bold**``), the
line breaks a member typed (Shift+Enter) as ``<br>``, and web addresses as links.

Only the two markers, the line breaks and http(s) addresses become markup, and only around text
that was escaped already, so nothing a member types can become a tag or an attribute, and no
other scheme (``javascript:``, ``data:``) becomes a link. Emphasis stays on its line: a marker
never pairs with one on another line.

A line's inline rolls (``said``) stand where they were typed as their highlighted total, their
breakdown shown on hover, focus and tap; emphasis may run across them (``*I hit [[1d6]]*``).
"""

from __future__ import annotations

import re

from django import template
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from tabletop.scenes.actions.talk import CHAT_LIMIT

register = template.Library()

# Markers hug their words ("*waves*", not "2 * 3 * 4"), as in Markdown.
_BOLD = re.compile(r"\*\*(?=[^\s*])(.+?)(?<=[^\s*])\*\*")
_ITALIC = re.compile(r"(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])")
# Three or more line breaks with only spaces between them: one empty line is kept, not a tall
# column of them.
_BLANK_LINES = re.compile(r"\n[^\S\n]*\n(?:[^\S\n]*\n)+")


# A web address a member typed: http or https only, not glued to the word or address before it
# ("xhttp://", "javascript:http://"). It runs to a space, a quote or an angle bracket, never
# into a placeholder (the private-use characters below); its end is trimmed by _trimmed.
_URL = re.compile(r"(?<![\w@/.:+-])https?://[^\s<>\"`\x00-\x1f\x7f\ue000-\uf8ff]+", re.IGNORECASE)
# What ends a sentence, not an address: "see https://example.com." links the address alone.
_TRAILING = ".,:;!?'\"*"
_CLOSERS = {")": "(", "]": "[", "}": "{"}
_VALID = URLValidator(schemes=["http", "https"])
# Each link's place while the text is marked up (rolls take U+E000 on, see said).
_LINK_PLACE = 0xF000
_LINK_PLACES = re.compile("[\uf000-\uf8ff]")
_LINK_ROOM = 0xF8FF - _LINK_PLACE + 1


def _trimmed(url: str) -> str:
    """``url`` without the punctuation that closes the sentence around it: trailing stops and
    quotes, and a closing bracket that opens nowhere inside it ("(see https://x.org/a)")."""
    while url:
        last = url[-1]
        if last in _TRAILING or (last in _CLOSERS and url.count(_CLOSERS[last]) < url.count(last)):
            url = url[:-1]
        else:
            break
    return url


def _link_html(url: str) -> str:
    return format_html(
        '<a class="chat-link" href="{}" rel="noopener nofollow" target="_blank">{}</a>', url, url
    )


def links(text: str) -> tuple[str, list[str]]:
    """``text`` with each http(s) address it holds replaced by a placeholder, and the
    addresses in order: what ``_URL`` finds, trimmed, that Django's URLValidator accepts (a
    host that is a host, at most 2048 characters). Typed placeholders become U+FFFD first."""
    text = _LINK_PLACES.sub("\ufffd", text)
    found: list[str] = []

    def place(match: re.Match[str]) -> str:
        url = _trimmed(match.group(0))
        try:
            _VALID(url)
        except ValidationError:
            return match.group(0)
        if len(found) >= _LINK_ROOM:
            return match.group(0)
        found.append(url)
        return chr(_LINK_PLACE + len(found) - 1) + match.group(0)[len(url) :]

    return _URL.sub(place, text), found


def _italic(match: re.Match[str]) -> str:
    inner = match.group(1)
    if inner.count("<strong>") != inner.count("</strong>"):
        return match.group(0)  # would cross a bold span: left as typed, tags kept well nested
    return f"<em>{inner}</em>"


@register.filter(name="emphasis")
def emphasis(text: object) -> SafeString:
    placed, urls = links("" if text is None else str(text))
    # escape(), not conditional_escape(): whatever the text is, it is escaped here.
    escaped = str(escape(placed))
    escaped = escaped.replace("\r\n", "\n").replace("\r", "\n")
    escaped = _BLANK_LINES.sub("\n\n", escaped)
    marked = _BOLD.sub(r"<strong>\1</strong>", escaped)
    marked = _ITALIC.sub(_italic, marked)
    marked = marked.replace("\n", "<br>")
    marked = _LINK_PLACES.sub(lambda m: _link_html(urls[ord(m.group(0)) - _LINK_PLACE]), marked)
    return mark_safe(marked)  # noqa: S308 - escaped text, our own three tags, format_html's links


# Each inline roll's place while the line is marked up: one private-use character per roll,
# which no typed character can fake (the line's own are made U+FFFD first).
_PLACE = 0xE000
_PLACES = re.compile("[\ue000-\uf8ff]")


# A dropped die in a breakdown, as rules.expression writes it (avrae/d20's "~~1~~").
_DROPPED = re.compile(r"~~(.+?)~~")


def _roll_html(roll: dict) -> str:
    """The total, and its breakdown with each dropped die struck through (as the dice box's
    card shows one), escaped first."""
    result = roll.get("result")
    breakdown = str(escape(str((result if isinstance(result, dict) else {}).get("breakdown", ""))))
    struck = _DROPPED.sub(
        r'<s class="dropped">\1<span class="visually-hidden"> dropped</span></s>', breakdown
    )
    return format_html(
        '<button type="button" class="inline-roll"><span class="inline-roll-total">{}</span>'
        '<span class="inline-roll-breakdown"> {}</span></button>',
        roll.get("total", ""),
        mark_safe(struck),  # noqa: S308 - escaped above; our own tags
    )


def _rolls_in_place(text: str, rolls: object) -> list[dict] | None:
    """The rolls, when each stands in ``text`` where it says, in order; else None."""
    if not isinstance(rolls, list):
        return None
    end = 0
    for roll in rolls:
        at = roll.get("at") if isinstance(roll, dict) else None
        if not (isinstance(at, list) and len(at) == 2 and end <= at[0] <= at[1] <= len(text)):
            return None
        end = at[1]
    return rolls


@register.filter(name="said")
def said(data: object) -> SafeString:
    """A chat event's line (``payloads.Said``) as its card shows it: ``emphasis``, with each
    inline roll in place."""
    data = data if isinstance(data, dict) else {}
    text = str(data.get("text", ""))
    rolls = _rolls_in_place(text, data.get("rolls"))
    if not rolls:
        return emphasis(text)
    pieces, end = [], 0
    for n, roll in enumerate(rolls):
        start, stop = roll["at"]
        pieces += [_PLACES.sub("\ufffd", text[end:start]), chr(_PLACE + n)]
        end = stop
    pieces.append(_PLACES.sub("\ufffd", text[end:]))
    marked = str(emphasis("".join(pieces)))
    marked = _PLACES.sub(lambda m: _roll_html(rolls[ord(m.group(0)) - _PLACE]), marked)
    return mark_safe(marked)  # noqa: S308 - emphasis's escaped text and format_html's rolls


@register.filter(name="said_aloud")
def said_aloud(data: object) -> str:
    """A chat event's line for the ear (its card's spoken line): each inline roll its total
    alone (the breakdown stays on the card), the emphasis markers dropped, on one line. Plain
    text: the template escapes it."""
    data = data if isinstance(data, dict) else {}
    text = str(data.get("text", ""))
    pieces, end = [], 0
    for roll in _rolls_in_place(text, data.get("rolls")) or []:
        start, stop = roll["at"]
        pieces += [text[end:start], str(roll.get("total", ""))]
        end = stop
    pieces.append(text[end:])
    plain = _ITALIC.sub(r"\1", _BOLD.sub(r"\1", "".join(pieces)))
    return " ".join(plain.split())


@register.simple_tag
def chat_limit() -> int:
    """The longest line the table takes (``CHAT_LIMIT``), for the composer's ``data-limit``:
    the page checks the server's own number, not a copy of it."""
    return CHAT_LIMIT
