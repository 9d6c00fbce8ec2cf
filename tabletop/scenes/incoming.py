"""A frame a scene socket receives, read before anything acts on it: text under
``MAX_FRAME_BYTES``, brackets nested at most ``MAX_DEPTH`` deep, strict JSON (no NaN, no
infinity). ``read_frame`` returns the command or raises ``ClientError`` saying why it is refused.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_FRAME_BYTES = 16 * 1024
#: daphne's own cap on one incoming message (``--websocket-max-message-size``, 1 MiB unless
#: set), just above MAX_FRAME_BYTES so a frame between the two gets this consumer's clear refusal;
#: on anything bigger daphne drops the connection, no error frame, without buffering it whole.
#: The one number behind the flag in the Makefile's ``run``, docker-compose.yml, tests/servers.py
#: and bench/fanout/servers.py (tests/tabletop/security/test_bad_frames.py checks they agree).
DAPHNE_MAX_MESSAGE_BYTES = 64 * 1024
#: Brackets deeper than this are refused before parsing: Python's json recurses once per level,
#: and 1,000 levels (2 KB) raise RecursionError. Commands are flat forms; a few levels at most.
MAX_DEPTH = 32
#: The id a page gives a command (``cid``) to learn how it ended: a short token of its own.
COMMAND_ID = re.compile(r"[A-Za-z0-9_-]{1,40}")
#: The id in a frame refused unread (a flood): as the page writes it, no JSON parse.
FLOODED_ID = re.compile(r'"cid"\s*:\s*"([A-Za-z0-9_-]{1,40})"')


class ClientError(Exception):
    """A problem with what the client sent; becomes an error frame."""


def _not_json(constant: str) -> float:
    raise ValueError(f"{constant} is not JSON")  # Python's json would accept NaN and Infinity


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:20]} is out of range")  # 1e400 would parse as infinity
    return value


#: A JSON string (to its closing quote, or to the end when unterminated) or a bracket. It always
#: matches at a quote, never backtracks: one linear pass, however hostile the text.
_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[][{}]', re.DOTALL)


def _too_deep(text: str) -> bool:
    """Whether brackets outside strings nest deeper than MAX_DEPTH. Up to the first syntax error
    (where json stops) this counts what json would recurse into, never less."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return False  # every usual command: no scan
    depth = 0
    for match in _STRING_OR_BRACKET.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif token in ("]", "}"):
            depth -= 1
    return False


def read_frame(text_data: str | None) -> Any:
    """The frame's JSON, or ClientError saying why it is refused."""
    try:
        size = len(text_data.encode("utf-8")) if text_data is not None else None
    except UnicodeEncodeError:  # lone surrogates: not text (daphne would not pass them)
        size = None
    if size is None or size > MAX_FRAME_BYTES:
        raise ClientError(f"Message refused: frames must be text under {MAX_FRAME_BYTES} B.")
    if _too_deep(text_data):
        raise ClientError(f"Message refused: nested too deeply (over {MAX_DEPTH} levels).")
    try:
        return json.loads(text_data, parse_constant=_not_json, parse_float=_finite_float)
    except ValueError:
        raise ClientError("Message refused: it is not valid JSON.") from None


#: The longest round trip a page may report (a minute: beyond that it is not a live table).
MAX_RTT_MS = 60_000


def ping_clock(content: dict[str, Any]) -> int | float:
    """A ping's ``t``: the page's clock, sent back at once (it measures the round trip)."""
    sent = content.get("t")
    if isinstance(sent, bool) or not isinstance(sent, int | float):
        raise ClientError("ping needs t, a number the page sent (its clock).")
    return sent


def ping_rtt(content: dict[str, Any]) -> int | None:
    """A ping's ``rtt``: the round trip the page measured last time (ms), if it says."""
    rtt = content.get("rtt")
    if rtt is None:
        return None
    if isinstance(rtt, bool) or not isinstance(rtt, int | float) or not 0 <= rtt <= MAX_RTT_MS:
        raise ClientError(f"ping's rtt is a round trip in milliseconds (0 to {MAX_RTT_MS}).")
    return round(rtt)


def hello_last_seq(content: dict[str, Any]) -> int:
    """A hello's ``last_seq``: the newest seq the page has (0 for none)."""
    last_seq = content.get("last_seq", 0)
    if isinstance(last_seq, bool) or not isinstance(last_seq, int) or last_seq < 0:
        raise ClientError("hello needs last_seq, the newest seq you have (a whole number).")
    return last_seq
