"""The session ledger: a hash chain over what every member of a scene may know.

An entry is made when an event every member knows of is recorded (audience everyone, private or
blind: the stub of a hidden roll, with its commitment; never gm_only, self or a whisper, which
not every member knows of). ``record_event`` stores it on the event (``SceneEvent.ledger``) and
moves the scene's head, so an entry is never changed afterwards, even when a later spend amends
the event's ``public`` data. Every member's chain and head are therefore the same; each member's
export adds, outside the chain, the ``details`` that member may see (``audiences.visibility``).

Each entry holds seq, kind, time (ISO 8601 UTC), actor (username or null), audience, public,
``commitment`` when the event committed to a secret, and ``opening`` when the event publishes
its parent's secret (a reveal; an op challenge's end): ``{seq, commitment, nonce, secret}`` (or
``text``, the committed canonical JSON, when the secret holds a number JavaScript can't spell
back). ``prev`` is the previous entry's hash (64 zeros for the first) and::

    hash = sha256_hex(utf8(prev + canonical_json(entry without "hash")))

Numbers are held as JavaScript reads JSON (``for_javascript``), so the browser's verifier
(templates/scenes/ledger/verify.js) hashes the same bytes as this module's.

The HTML export shows each entry as readable text drawn from its data (``entry_view``); both
verifiers draw it again from the data they checked and compare it with the text on the page
(``shown_problems``), so what a reader sees is what was verified.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

from django.template.loader import render_to_string
from django.utils import timezone

from tabletop.scenes.audiences import FULL, Viewer, visibility
from tabletop.scenes.commitments import canonical_json
from tabletop.scenes.models import Audience, Scene, SceneEvent

GENESIS = "0" * 64
#: The audiences whose events every member knows of (in full or as a stub).
CHAIN_AUDIENCES = frozenset({Audience.EVERYONE, Audience.PRIVATE, Audience.BLIND})
#: The largest integer a JavaScript number holds exactly.
MAX_SAFE_INTEGER = 2**53 - 1
FORMATS = {
    "json": "application/json; charset=utf-8",
    "md": "text/markdown; charset=utf-8",
    "html": "text/html; charset=utf-8",
}
HOW = " ".join(
    (
        "hash = lowercase hex sha256 of the UTF-8 bytes of",
        'prev + canonical_json(entry without "hash"); canonical_json: keys sorted, no spaces,',
        "UTF-8 (Python's json.dumps(sort_keys=True, separators=(',', ':'), ensure_ascii=False));",
        "the first prev is 64 zeros; an opening is checked as",
        'sha256(canonical_json(secret) + ":" + nonce) == commitment (or its text).',
    )
)
_REQUIRED = ("seq", "kind", "time", "actor", "audience", "public", "prev", "hash")
_HEX64 = re.compile(r"[0-9a-f]{64}")


class LedgerError(ValueError):
    """A file that is not a session ledger at all (the message says why)."""


# --- entries ------------------------------------------------------------------------------------


def in_chain(audience: str) -> bool:
    return audience in CHAIN_AUDIENCES


#: The leaves JSON holds as Python holds them: the usual leaf is kept before any other test
#: (a ledger entry is walked on every event; bench/README.md).
_AS_IS = frozenset({str, bool, type(None)})


def for_javascript(value: Any) -> Any:
    """``value`` as a browser reads it back from JSON: JavaScript has one number type, so an
    integral float is an int (1.0 -> 1), and an integer it can't hold exactly is the nearest
    float. Raises ValueError for what JSON can't hold (NaN, infinities, other types)."""
    kind = type(value)
    if kind in _AS_IS or (kind is int and -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER):
        return value
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            raise ValueError("JSON object keys are text")
        return {str(key): for_javascript(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [for_javascript(item) for item in value]
    if isinstance(value, str):
        return str(value)  # a TextChoices member becomes its plain value
    if isinstance(value, int):
        if abs(value) <= MAX_SAFE_INTEGER:
            return int(value)  # an IntEnum member becomes its plain value
        try:
            return for_javascript(float(value))
        except OverflowError:
            raise ValueError(f"the number {value} is too large for JSON") from None
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value} is not a JSON number")
        if value.is_integer() and abs(value) <= MAX_SAFE_INTEGER:
            return int(value)
        return value
    raise ValueError(f"a {type(value).__name__} is not JSON")


def entry_hash(entry: dict[str, Any]) -> str:
    """The hash of an entry: sha256 of its prev and its canonical JSON without "hash"."""
    body = for_javascript({key: value for key, value in entry.items() if key != "hash"})
    return _hash_of(body, entry.get("prev"))


def _hash_of(body: dict[str, Any], prev: Any) -> str:
    return _sha256((prev if isinstance(prev, str) else canonical_json(prev)) + canonical_json(body))


def iso_time(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def opens_parent(event: Any, parent: Any) -> bool:
    """Does ``event`` publish its parent's secret? A roll's reveal does, and so does an event
    whose public data carries the parent's nonce (an op challenge's end). A later spend on a
    revealed roll also points at it, so being revealed is not enough."""
    if parent is None or not parent.commitment or parent.revealed_at is None:
        return False
    if not in_chain(parent.audience):
        # A GM-only roll: the chain never held its commitment, so there is nothing to check the
        # opening against; once revealed it is in every member's details instead.
        return False
    return event.kind == "reveal" or (
        bool(parent.nonce) and (event.public or {}).get("nonce") == parent.nonce
    )


def opening_of(parent: Any) -> dict[str, Any]:
    """The published secret of ``parent``: what its commitment is checked against."""
    opening: dict[str, Any] = {"seq": parent.seq, "nonce": parent.nonce}
    committed = canonical_json(parent.secret)
    try:
        secret = for_javascript(parent.secret)
    except ValueError:
        secret = None
    if secret is not None and canonical_json(secret) == committed:
        opening["secret"] = secret
    else:
        # A number JavaScript spells otherwise (12.0): the committed text itself is published.
        opening["text"] = committed
    return opening


def chain_entry(
    event: Any, *, actor_name: str | None, parent: Any, prev: str
) -> tuple[dict[str, Any], str]:
    """The ledger entry of a chain event (without its hash) and its hash. ``event`` needs seq,
    kind, created_at, audience, public and commitment (a model or a migration's model)."""
    entry: dict[str, Any] = {
        "seq": event.seq,
        "kind": event.kind,
        "time": iso_time(event.created_at),
        "actor": actor_name,
        "audience": str(event.audience),
        "public": event.public or {},
        "prev": prev or GENESIS,
    }
    if event.commitment:
        entry["commitment"] = event.commitment
    if opens_parent(event, parent):
        entry["opening"] = opening_of(parent)
    entry = for_javascript(entry)
    return entry, _hash_of(entry, entry["prev"])  # entry_hash, without walking it again


# --- exports ------------------------------------------------------------------------------------


def _details(event: SceneEvent) -> dict[str, Any] | None:
    """What a viewer who sees ``event`` in full knows beyond the chain: the secret of a hidden
    chain event not yet revealed (its opening is in the chain once it is), or the whole of an
    event outside the chain. Never an unrevealed nonce: it reaches nobody's browser."""
    if event.ledger is not None:
        if event.secret and event.revealed_at is None:
            return {"secret": event.secret}
        return None
    record: dict[str, Any] = {
        "kind": event.kind,
        "time": iso_time(event.created_at),
        "actor": event.actor.get_username() if event.actor is not None else None,
        "audience": event.audience,
        "public": event.public,
    }
    if event.secret:
        record["secret"] = event.secret
    if event.commitment:
        record["commitment"] = event.commitment
        if event.revealed_at is not None:
            record["nonce"] = event.nonce  # a revealed GM-only roll: its secret has ended
    return record


def export(*, scene: Scene, viewer: Viewer, viewer_name: str) -> dict[str, Any]:
    """One member's ledger: the chain (the same for every member) and, outside it, the details
    this viewer may see. One query, whatever the length of the scene."""
    entries: list[dict[str, Any]] = []
    details: dict[str, Any] = {}
    events = SceneEvent.objects.filter(scene=scene).select_related("actor").order_by("seq")
    for event in events.iterator(chunk_size=500):
        if event.ledger is not None:
            entries.append({**event.ledger, "hash": event.ledger_hash})
        if visibility(event, viewer) == FULL:
            extra = _details(event)
            if extra is not None:
                details[str(event.seq)] = extra
    return {
        "ledger": "Tabletop session ledger",
        "format": 1,
        "how": HOW,
        "scene": {"id": scene.pk, "name": scene.name, "campaign": scene.campaign.name},
        "exported_for": viewer_name,
        "exported_at": iso_time(timezone.now()),
        "head": entries[-1]["hash"] if entries else GENESIS,
        "entries": entries,
        "details": details,
    }


def filename(scene: Scene, fmt: str) -> str:
    return f"ledger-scene-{scene.pk}.{fmt}"


def render(doc: dict[str, Any], fmt: str) -> tuple[str, str]:
    """The export in ``fmt`` (json, md, html) and its content type."""
    if fmt == "json":
        return to_json(doc), FORMATS[fmt]
    if fmt not in FORMATS:
        raise ValueError(f"No ledger format {fmt!r} (json, md or html).")
    names = {key: _md_text(str(doc["scene"][key])) for key in ("name", "campaign")}
    context = {"doc": doc, "rows": _rows(doc), "extras": _extras(doc), "md": names}
    if fmt == "md":
        return render_to_string("scenes/ledger/ledger.md", context), FORMATS[fmt]
    return render_to_string("scenes/ledger/ledger.html", context), FORMATS[fmt]


def to_json(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _code(text: str) -> str:
    """``text`` as one Markdown code span, whatever backticks it holds."""
    text = text.replace("\n", " ")
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _md_text(text: str) -> str:
    """Text a member typed, as Markdown that shows it as typed (no markup, no HTML)."""
    return re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", " ".join(text.split()))


def _said(data: Any) -> str:
    """A line a person reads first: the card's own summary or words, when it has them."""
    if not isinstance(data, dict):
        return ""
    for key in ("summary", "text", "title", "name"):
        if isinstance(data.get(key), str) and data[key]:
            return data[key]
    return ""


def _rows(doc: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for index, entry in enumerate(doc["entries"], 1):
        opening = entry.get("opening")
        opened = ""
        if isinstance(opening, dict):
            opened = opening.get("text") or canonical_json(opening.get("secret"))
        public_text = canonical_json(entry.get("public"))
        rows.append(
            {
                "entry": entry,
                "view": entry_view(index, entry),
                "said": _said(entry.get("public")),
                "said_md": _md_text(_said(entry.get("public"))),
                "public_md": _code(public_text),
                "opening": opening,
                "opened_md": _code(opened) if opening else "",
            }
        )
    return rows


def _extras(doc: dict[str, Any]) -> list[dict[str, Any]]:
    extras = []
    for seq, detail in doc["details"].items():
        said = _said(detail.get("public")) or _said(detail.get("secret"))
        text = canonical_json(detail)
        extras.append(
            {
                "seq": seq,
                "view": detail_view(detail),
                "said_md": _md_text(said),
                "md": _code(text),
            }
        )
    return extras


# --- what a reader sees ---------------------------------------------------------------------------
# The HTML file shows each entry as text that entry_view draws from its data. Its verifier
# (verify.js entryView: the same rules, spelled in JavaScript) draws it again from the data it has
# just checked and compares it with the text on the page, and so does verify_ledger: a word changed
# where a reader sees it is caught like a byte changed in the data.

#: Keys whose text says what happened, read first and in this order ("title: summary").
HEADLINE = ("title", "summary", "text", "message", "use_text", "name")
#: A die as rules/ records it, read as "d12 7" rather than key by key.
DIE_KEYS = frozenset({"sides", "rolled", "value", "kept", "exploded", "bonus", "source"})
_TIME = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2})T([0-9]{2}:[0-9]{2}:[0-9]{2})(\.[0-9]+)?Z")
#: HTML's whitespace: what a browser's text holds between the words a template writes.
_SPACE = re.compile(r"[ \t\n\r\f]+")


def plain_text(text: str) -> str:
    """``text`` with each run of whitespace one space, none at either end: how the text of an
    entry and the text a page shows for it are compared (a template's line breaks are free)."""
    return _SPACE.sub(" ", text).strip(" ")


def words(value: Any) -> str:
    """A JSON value as a person reads it: text as it is, numbers as the chain spells them,
    yes/no, lists with commas, objects as their headline then "key: value" by sorted key."""
    if value is None:
        return "none"
    if value is True:
        return "yes"
    if value is False:
        return "no"
    if isinstance(value, int | float):
        return _number(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ", ".join(_part(item) for item in value) if value else "none"
    if isinstance(value, dict):
        if _is_die(value):
            return _die(value)
        return "; ".join(part for part in (_headline(value), _facts(value)) if part) or "none"
    raise ValueError(f"a {type(value).__name__} is not JSON")


def _number(value: int | float) -> str:
    try:
        return canonical_json(for_javascript(value))
    except ValueError:  # too large for a double, as JavaScript reads it
        return "Infinity" if value > 0 else "-Infinity"


def _part(value: Any) -> str:
    """``words`` of a value inside a list or an object: bracketed when it has parts itself."""
    text = words(value)
    nested = isinstance(value, list) or (isinstance(value, dict) and not _is_die(value))
    return f"({text})" if nested and value else text


def _headline(data: dict[str, Any]) -> str:
    return ": ".join(data[key] for key in HEADLINE if isinstance(data.get(key), str) and data[key])


def _facts(data: dict[str, Any]) -> str:
    """Each key but the headline's as "key: value", by sorted key; empty text says nothing."""
    facts = []
    for key in sorted(data):
        value = data[key]
        if value == "" or (key in HEADLINE and isinstance(value, str)):
            continue  # empty, or in the headline
        text = words(value) if isinstance(value, list) else _part(value)
        facts.append(f"{key.replace('_', ' ')}: {text}")
    return "; ".join(facts)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_die(value: dict[str, Any]) -> bool:
    return (
        _is_number(value.get("sides"))
        and _is_number(value.get("value"))
        and all(key in DIE_KEYS for key in value)
    )


def _die(die: dict[str, Any]) -> str:
    notes = []
    if die.get("kept") is False:
        notes.append("dropped")
    if die.get("exploded") is True:
        notes.append("exploded")
    if "rolled" in die and words(die["rolled"]) != words(die["value"]):
        notes.append(f"rolled {_part(die['rolled'])}")
    if die.get("bonus") is not None and words(die["bonus"]) != "0":
        notes.append(f"bonus {_part(die['bonus'])}")
    if die.get("source") is not None:
        notes.append(f"from {_part(die['source'])}")
    text = f"d{words(die['sides'])} {words(die['value'])}"
    return f"{text} ({', '.join(notes)})" if notes else text


def _time_words(value: Any) -> str:
    found = _TIME.fullmatch(value) if isinstance(value, str) else None
    return f"{found.group(1)} {found.group(2)} UTC" if found else words(value)


def _read_json(text: Any) -> Any:
    """An opening's committed text, read back (JavaScript reads it the same way), or the text
    as it is when it is no JSON a browser can spell back."""
    if not isinstance(text, str):
        return text

    def no_constants(name: str) -> Any:
        raise ValueError(name)

    try:
        return for_javascript(json.loads(text, parse_constant=no_constants))
    except (ValueError, RecursionError):
        return text


def entry_view(index: int, entry: Any) -> dict[str, str]:
    """The text a reader sees for the ``index``-th entry (1 = first), part by part in the order
    the page shows them; parts that say nothing are "". verify.js entryView is the same."""
    if not isinstance(entry, dict):
        return {"n": f"#{index}", "what": words(entry)}
    public = entry.get("public")
    audience = entry.get("audience")
    opening = ""
    if "opening" in entry:
        opened = entry["opening"]
        if isinstance(opened, dict):
            secret = opened["secret"] if "secret" in opened else _read_json(opened.get("text"))
            opening = (
                f"reveals seq {words(opened.get('seq'))}: {words(secret)}"
                f" (nonce {words(opened.get('nonce'))})"
            )
        else:
            opening = f"reveals {words(opened)}"
    return {
        "n": f"#{index}",
        "seq": f"seq {words(entry.get('seq'))}",
        "when": _time_words(entry.get("time")),
        "who": "—" if entry.get("actor") is None else words(entry["actor"]),
        "what": words(entry.get("kind")).replace("_", " ")
        + ("" if audience == "everyone" else f" ({words(audience)})"),
        "headline": _headline(public) if isinstance(public, dict) else "",
        "facts": _facts(public) if isinstance(public, dict) else words(public),
        "opening": opening,
        "commitment": (
            f"hidden until revealed: commitment {words(entry['commitment'])}"
            if "commitment" in entry
            else ""
        ),
        "hash": f"hash {words(entry.get('hash'))}",
        "prev": f"after {words(entry.get('prev'))[:16]}…",
    }


def entry_text(index: int, entry: Any) -> str:
    """The whole text of an entry as the page shows it, spaces made plain."""
    return plain_text(" ".join(entry_view(index, entry).values()))


def detail_view(detail: Any) -> dict[str, str]:
    """What the file shows of one of the downloader's own details (outside the chain: nothing
    checks it, and the page says so)."""
    if not isinstance(detail, dict):
        return {"what": words(detail)}
    public = detail.get("public")
    view = {
        "what": (
            words(detail["kind"]).replace("_", " ") + f" ({words(detail.get('audience'))})"
            if "kind" in detail
            else "hidden result"
        ),
        "who": "" if detail.get("actor") is None else words(detail["actor"]),
        "when": _time_words(detail["time"]) if "time" in detail else "",
        "headline": _headline(public) if isinstance(public, dict) else "",
        "facts": _facts(public) if isinstance(public, dict) else "",
        "secret": "",
        "seal": "",
    }
    if "secret" in detail:
        view["secret"] = words(detail["secret"])
    if "commitment" in detail:
        view["seal"] = f"commitment {words(detail['commitment'])}"
        if "nonce" in detail:
            view["seal"] += f", revealed with nonce {words(detail['nonce'])}"
    return view


@dataclass(frozen=True)
class Shown:
    """What an HTML ledger shows a reader: the text of its head and of each entry of its chain
    in page order, and the chain's text outside any entry. None: the page lacks that part."""

    head: str | None
    rows: list[str] | None
    stray: str = ""


def _differ(shown: str, expected: str) -> tuple[str, str]:
    """Where two texts part: each one's differing stretch with a little of what surrounds it,
    counted in characters (code points), as verify.js counts them."""
    a, b = list(shown), list(expected)
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and a[-1 - end] == b[-1 - end]:
        end += 1
    return _excerpt(a, start, len(a) - end), _excerpt(b, start, len(b) - end)


def _excerpt(chars: list[str], start: int, stop: int) -> str:
    low, high = max(0, start - 16), min(len(chars), stop + 16)
    if high - low > 120:
        high = low + 120
    return ("…" if low else "") + "".join(chars[low:high]) + ("…" if high < len(chars) else "")


def _cut(text: str) -> str:
    return text if len(text) <= 60 else text[:60] + "…"


def shown_problems(doc: dict[str, Any], shown: Shown) -> list[Problem]:
    """Each place where the page's text is not what its data holds: an entry shown otherwise,
    or not at all, text in the chain that is in no entry, a head that is not the ledger's.
    verify.js shownProblems says the same in the same words."""
    entries = [_as_javascript_reads(entry) for entry in doc.get("entries") or []]
    problems: list[Problem] = []
    if shown.rows is None:
        problems.append(
            Problem(
                None,
                None,
                'The page does not show the chain: it has no element with id "ledger-entries".',
            )
        )
    else:
        for index, entry in enumerate(entries, 1):
            seq = entry.get("seq") if isinstance(entry, dict) else None
            name = _name(index, entry)
            if index > len(shown.rows):
                problems.append(Problem(index, seq, f"{name} is not shown on the page."))
                continue
            page, data = plain_text(shown.rows[index - 1]), entry_text(index, entry)
            if page != data:
                page, data = _differ(page, data)
                problems.append(
                    Problem(
                        index,
                        seq,
                        f"{name} is shown otherwise than its data: the page reads “{page}” "
                        f"where its data reads “{data}”.",
                    )
                )
        more = len(shown.rows) - len(entries)
        if more > 0:
            what = "entry" if more == 1 else "entries"
            problems.append(
                Problem(None, None, f"The page shows {more} more {what} than the ledger holds.")
            )
        stray = plain_text(shown.stray)
        if stray:
            problems.append(
                Problem(
                    None,
                    None,
                    f"The chain on the page shows text that is in no entry: “{_cut(stray)}”.",
                )
            )
    if shown.head is None:
        problems.append(
            Problem(
                None, None, 'The page does not show the head: it has no element with id "head".'
            )
        )
    elif plain_text(shown.head) != plain_text(words(doc.get("head"))):
        problems.append(Problem(None, None, "The head shown on the page is not the ledger's head."))
    return problems


class _PageText(HTMLParser):
    """The text of an HTML ledger's head and chain, as a browser's DOM holds it for a file the
    server wrote (verify.js reads the same from the DOM): each text goes to the innermost entry
    (an element with data-entry inside #ledger-entries) that holds it, or to the chain."""

    VOID = frozenset(
        ("area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param")
        + ("source", "track", "wbr")
    )

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        # Each open element: its tag, its role ("chain", "row" or ""), its row's number, and
        # whether it is the head (an element may be both, as getElementById finds it anywhere).
        self.open: list[tuple[str, str, int, bool]] = []
        self.head: list[str] | None = None
        self.rows: list[list[str]] | None = None
        self.stray: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        first: dict[str, str | None] = {}
        for key, value in attrs:
            first.setdefault(key, value)  # a browser keeps an attribute's first value
        if tag == "li":
            self._close_list_item()
        role, row = "", -1
        if first.get("id") == "ledger-entries" and self.rows is None:
            role, self.rows = "chain", []
        elif self.rows is not None and "data-entry" in first and self._in("chain"):
            role, row = "row", len(self.rows)
            self.rows.append([])
        is_head = first.get("id") == "head" and self.head is None
        if is_head:
            self.head = []
        if tag not in self.VOID:
            self.open.append((tag, role, row, is_head))

    def _in(self, role: str) -> bool:
        return any(open_role == role for _, open_role, _, _ in self.open)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)  # <div/> is <div> in HTML

    def handle_endtag(self, tag: str) -> None:
        for at in range(len(self.open) - 1, -1, -1):
            if self.open[at][0] == tag:
                del self.open[at:]
                return

    def _close_list_item(self) -> None:
        # A new <li> ends the open one of its list, as a browser's parser does.
        for at in range(len(self.open) - 1, -1, -1):
            tag = self.open[at][0]
            if tag in ("ol", "ul"):
                return
            if tag == "li":
                del self.open[at:]
                return

    def handle_data(self, data: str) -> None:
        for _, role, row, _ in reversed(self.open):
            if role == "row":
                self.rows[row].append(data)
                break
            if role == "chain":
                self.stray.append(data)
                break
        if self.head is not None and any(is_head for *_, is_head in self.open):
            self.head.append(data)


def read_shown(page: str) -> Shown:
    """What an HTML ledger shows a reader (its head, each entry of its chain)."""
    parser = _PageText()
    parser.feed(page)
    parser.close()
    return Shown(
        head=None if parser.head is None else "".join(parser.head),
        rows=None if parser.rows is None else ["".join(row) for row in parser.rows],
        stray="".join(parser.stray),
    )


# --- reading and verifying ------------------------------------------------------------------------


_EMBEDDED = re.compile(
    r'<script id="ledger-data" type="application/json">(.*?)</script>', re.DOTALL
)


def _decoded(data: str | bytes) -> str:
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise LedgerError(f"Not UTF-8 text (byte {exc.start} can't be read).") from None
    return data.removeprefix("\ufeff")


def _is_html(text: str) -> bool:
    return text.lstrip().startswith("<")


def read_document(data: str | bytes) -> dict[str, Any]:
    """A ledger from its JSON or HTML export (text or the file's bytes); LedgerError says why
    it isn't one."""
    text = _decoded(data)
    if _is_html(text):
        found = _EMBEDDED.search(text)
        if found is None:
            raise LedgerError(
                'This HTML file holds no ledger (no <script id="ledger-data"> element).'
            )
        text = found.group(1)  # json_script escaped <, > and & as \u003C...: still JSON

    def no_constants(name: str) -> Any:
        raise LedgerError(f"{name} is not a JSON number.")

    try:
        doc = json.loads(text, parse_constant=no_constants)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        raise LedgerError(f"Not valid JSON: {exc.msg} at {where}.") from None
    except RecursionError:
        raise LedgerError("Not a session ledger: its JSON is nested too deeply.") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("entries"), list):
        raise LedgerError('Not a session ledger: expected an object with an "entries" list.')
    return doc


@dataclass(frozen=True)
class Problem:
    index: int | None  # the entry's place in the chain (1 = first), None for the whole file
    seq: Any
    message: str

    def __str__(self) -> str:
        return self.message


@dataclass
class Report:
    entries: int
    head: Any
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        if self.ok:
            return f"verified: {self.entries} entries, head {self.head}"
        return "NOT VERIFIED:\n" + "\n".join(f"- {p}" for p in self.problems)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _is_hex64(value: Any) -> bool:
    return isinstance(value, str) and _HEX64.fullmatch(value) is not None


def _is_seq(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _name(index: int, entry: Any) -> str:
    seq = entry.get("seq") if isinstance(entry, dict) else None
    return f"entry {index} (seq {seq})" if _is_seq(seq) else f"entry {index}"


def verify(doc: dict[str, Any]) -> Report:
    """Recompute every hash and check every opening. The browser's verifier (verify.js) makes the
    same checks in the same order with the same words."""
    entries = doc.get("entries")
    if not isinstance(entries, list):
        raise LedgerError('Not a session ledger: expected an object with an "entries" list.')
    entries = [_as_javascript_reads(entry) for entry in entries]
    problems: list[Problem] = []
    prev = GENESIS
    last_seq: int | None = None
    commitments: dict[int, str] = {}
    for index, entry in enumerate(entries, 1):
        name = _name(index, entry)
        seq = entry.get("seq") if isinstance(entry, dict) else None
        found = _entry_problems(index, name, entry, prev, last_seq, commitments)
        problems.extend(Problem(index, seq, message) for message in found)
        if isinstance(entry, dict) and _is_seq(seq):
            if _is_hex64(entry.get("commitment")):
                commitments[seq] = entry["commitment"]
            last_seq = seq if last_seq is None else max(seq, last_seq)
        # After a break, go on from this entry's own hash so later breaks are named too.
        prev = entry.get("hash") if isinstance(entry, dict) else ""
    head = doc.get("head")
    if head != prev:
        problems.append(
            Problem(None, None, "The head is not the last entry's hash (the end was changed).")
        )
    return Report(entries=len(entries), head=head, problems=problems)


def _as_javascript_reads(entry: Any) -> Any:
    """The entry as the browser's verifier sees it (5.0 is the seq 5 there too)."""
    try:
        return for_javascript(entry)
    except ValueError:
        return entry  # hashing it says why


def _entry_problems(
    index: int,
    name: str,
    entry: Any,
    prev: Any,
    last_seq: int | None,
    commitments: dict[int, str],
) -> list[str]:
    """Every way one entry fails, in the order verify.js checks them."""
    if not isinstance(entry, dict):
        return [f"{name} is not an object."]
    missing = [key for key in _REQUIRED if key not in entry]
    if missing:
        return [f"{name} lacks {', '.join(missing)}."]
    found = []
    if entry["prev"] != prev:
        if index == 1:
            found.append(f"{name} breaks the chain: the first entry's prev must be 64 zeros.")
        else:
            found.append(
                f"{name} breaks the chain: its prev is not the hash of entry {index - 1} "
                "(an entry was dropped, added or moved)."
            )
    try:
        if entry_hash(entry) != entry["hash"]:
            found.append(f"{name} was changed: its hash does not match its content.")
    except (ValueError, UnicodeEncodeError) as exc:
        found.append(f"{name} can't be hashed: {_why(exc)}.")
    seq = entry["seq"]
    if not _is_seq(seq):
        found.append(f"{name} has no whole-number seq.")
    elif last_seq is not None and seq <= last_seq:
        found.append(f"{name} is out of order: seq {seq} comes after seq {last_seq}.")
    if "commitment" in entry and not _is_hex64(entry["commitment"]):
        found.append(f"{name} has a commitment that is not 64 hex digits.")
    if "opening" in entry:
        message = _opening_problem(entry, seq, commitments)
        if message:
            found.append(f"{name} {message}")
    return found


def _why(exc: Exception) -> str:
    if isinstance(exc, UnicodeEncodeError):
        return "it holds text that is not valid Unicode"
    return str(exc)


def _opening_problem(entry: dict[str, Any], seq: Any, commitments: dict[int, str]) -> str:
    """What is wrong with an entry's opening ('' when it checks out)."""
    opening = entry["opening"]
    if (
        not isinstance(opening, dict)
        or not _is_seq(opening.get("seq"))
        or not isinstance(opening.get("nonce"), str)
        or ("secret" in opening) == ("text" in opening)
        or ("text" in opening and not isinstance(opening["text"], str))
    ):
        return "has an opening that is not {seq, nonce and secret or text}."
    opened = opening["seq"]
    commitment = commitments.get(opened)
    if (_is_seq(seq) and opened >= seq) or commitment is None:
        return f"opens seq {opened}, which is not an earlier entry with a commitment."
    try:
        text = (
            opening["text"]
            if "text" in opening
            else canonical_json(for_javascript(opening["secret"]))
        )
        digest = _sha256(text + ":" + opening["nonce"])
    except (ValueError, UnicodeEncodeError) as exc:
        return f"has an opening that can't be hashed: {_why(exc)}."
    if digest != commitment:
        return f"fails its commitment: the opening of seq {opened} does not hash to it."
    return ""


def verify_text(data: str | bytes) -> Report:
    """Verify a JSON or HTML export. For an HTML file, also what it shows a reader: each entry's
    text and the head must be what its data holds (as its own verifier checks in the browser)."""
    text = _decoded(data)
    doc = read_document(text)
    report = verify(doc)
    if _is_html(text):
        try:
            report.problems.extend(shown_problems(doc, read_shown(text)))
        except RecursionError:
            raise LedgerError("Not a session ledger: its JSON is nested too deeply.") from None
    return report


def problems_as_dicts(problems: Iterable[Problem]) -> list[dict[str, Any]]:
    return [{"index": p.index, "seq": p.seq, "message": p.message} for p in problems]
