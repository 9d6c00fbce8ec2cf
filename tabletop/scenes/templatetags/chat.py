"""Chat text on a card: escaped first, then a little emphasis (``*italic*``, ``**bold**``).

Only the two markers become markup, and only around text that was escaped already, so nothing a
member types can become a tag, an attribute or a link.
"""

from __future__ import annotations

import re

from django import template
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

# Markers hug their words ("*waves*", not "2 * 3 * 4"), as in Markdown.
_BOLD = re.compile(r"\*\*(?=[^\s*])(.+?)(?<=[^\s*])\*\*")
_ITALIC = re.compile(r"(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])")


def _italic(match: re.Match[str]) -> str:
    inner = match.group(1)
    if inner.count("<strong>") != inner.count("</strong>"):
        return match.group(0)  # would cross a bold span: left as typed, tags kept well nested
    return f"<em>{inner}</em>"


@register.filter(name="emphasis")
def emphasis(text: object) -> SafeString:
    escaped = str(conditional_escape("" if text is None else str(text)))
    marked = _BOLD.sub(r"<strong>\1</strong>", escaped)
    marked = _ITALIC.sub(_italic, marked)
    return mark_safe(marked)  # noqa: S308 - built from escaped text and our own two tags
