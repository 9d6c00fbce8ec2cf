"""Chat text on a card: escaped first, then a little emphasis (``*italic*``, ``**bold**``) and
the line breaks a member typed (Shift+Enter) as ``<br>``.

Only the two markers and the line breaks become markup, and only around text that was escaped
already, so nothing a member types can become a tag, an attribute or a link. Emphasis stays on
its line: a marker never pairs with one on another line.
"""

from __future__ import annotations

import re

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from tabletop.scenes.actions.talk import CHAT_LIMIT

register = template.Library()

# Markers hug their words ("*waves*", not "2 * 3 * 4"), as in Markdown.
_BOLD = re.compile(r"\*\*(?=[^\s*])(.+?)(?<=[^\s*])\*\*")
_ITALIC = re.compile(r"(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])")
# Three or more line breaks with only spaces between them: one empty line is kept, not a tall
# column of them.
_BLANK_LINES = re.compile(r"\n[^\S\n]*\n(?:[^\S\n]*\n)+")


def _italic(match: re.Match[str]) -> str:
    inner = match.group(1)
    if inner.count("<strong>") != inner.count("</strong>"):
        return match.group(0)  # would cross a bold span: left as typed, tags kept well nested
    return f"<em>{inner}</em>"


@register.filter(name="emphasis")
def emphasis(text: object) -> SafeString:
    # escape(), not conditional_escape(): whatever the text is, it is escaped here.
    escaped = str(escape("" if text is None else str(text)))
    escaped = escaped.replace("\r\n", "\n").replace("\r", "\n")
    escaped = _BLANK_LINES.sub("\n\n", escaped)
    marked = _BOLD.sub(r"<strong>\1</strong>", escaped)
    marked = _ITALIC.sub(_italic, marked)
    marked = marked.replace("\n", "<br>")
    return mark_safe(marked)  # noqa: S308 - built from escaped text and our own three tags


@register.simple_tag
def chat_limit() -> int:
    """The longest line the table takes (``CHAT_LIMIT``), for the composer's ``data-limit``:
    the page checks the server's own number, not a copy of it."""
    return CHAT_LIMIT
