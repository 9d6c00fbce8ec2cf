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

The text a reader sees for each entry, the Markdown and HTML files drawn from it, and the check
that a page shows what its data holds are in ``ledger_text``, which builds on this module.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.utils import timezone

from tabletop.scenes.audiences import FULL, Viewer, visibility
from tabletop.scenes.commitments import canonical_json
from tabletop.scenes.models import Audience, Scene, SceneEvent

GENESIS = "0" * 64
#: The audiences whose events every member knows of (in full or as a stub).
CHAIN_AUDIENCES = frozenset({Audience.EVERYONE, Audience.PRIVATE, Audience.BLIND})
#: The largest integer a JavaScript number holds exactly.
MAX_SAFE_INTEGER = 2**53 - 1
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


def to_json(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


# --- reading and verifying ------------------------------------------------------------------------


_EMBEDDED = re.compile(
    r'<script id="ledger-data" type="application/json">(.*?)</script>', re.DOTALL
)


def decoded_text(data: str | bytes) -> str:
    """A file's text (its bytes read as UTF-8, without a byte order mark)."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise LedgerError(f"Not UTF-8 text (byte {exc.start} can't be read).") from None
    return data.removeprefix("\ufeff")


def is_html(text: str) -> bool:
    """Is this file the HTML export (else it is read as the JSON one)?"""
    return text.lstrip().startswith("<")


def read_document(data: str | bytes) -> dict[str, Any]:
    """A ledger from its JSON or HTML export (text or the file's bytes); LedgerError says why
    it isn't one."""
    text = decoded_text(data)
    if is_html(text):
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


def entry_name(index: int, entry: Any) -> str:
    """How a problem names an entry: "entry 3 (seq 7)", or "entry 3" when it has no seq."""
    seq = entry.get("seq") if isinstance(entry, dict) else None
    return f"entry {index} (seq {seq})" if _is_seq(seq) else f"entry {index}"


def verify(doc: dict[str, Any]) -> Report:
    """Recompute every hash and check every opening. The browser's verifier (verify.js) makes the
    same checks in the same order with the same words."""
    entries = doc.get("entries")
    if not isinstance(entries, list):
        raise LedgerError('Not a session ledger: expected an object with an "entries" list.')
    entries = [as_javascript_reads(entry) for entry in entries]
    problems: list[Problem] = []
    prev = GENESIS
    last_seq: int | None = None
    commitments: dict[int, str] = {}
    for index, entry in enumerate(entries, 1):
        name = entry_name(index, entry)
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


def as_javascript_reads(entry: Any) -> Any:
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


def problems_as_dicts(problems: Iterable[Problem]) -> list[dict[str, Any]]:
    return [{"index": p.index, "seq": p.seq, "message": p.message} for p in problems]
