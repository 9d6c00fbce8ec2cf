"""The session ledger as a reader sees it: the text each entry reads as, the files that show it
(Markdown, and HTML that checks itself), and the check that a page shows what its data holds.

The HTML export shows each entry as readable text drawn from its data (``entry_view``). Both
verifiers, ``verify_text`` here (``manage.py verify_ledger``) and the file's own script
(templates/scenes/ledger/verify.js: ``entryView``, ``shownProblems``, the same rules spelled in
JavaScript and tested equal), verify the chain, draw each entry's text again from the data they
checked and compare it with the text on the page (``shown_problems``), so what a reader sees is
what was verified.

The chain itself (entries, hashes, a member's export, a file's data read and verified) is
``ledger``'s: this module builds on it, never the other way round.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

from django.template.loader import render_to_string

from tabletop.scenes.commitments import canonical_json
from tabletop.scenes.ledger import (
    LedgerError,
    Problem,
    Report,
    as_javascript_reads,
    decoded_text,
    entry_name,
    for_javascript,
    is_html,
    read_document,
    to_json,
    verify,
)
from tabletop.scenes.models import Scene

# --- what a reader sees ---------------------------------------------------------------------------

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


# --- the files ------------------------------------------------------------------------------------


FORMATS = {
    "json": "application/json; charset=utf-8",
    "md": "text/markdown; charset=utf-8",
    "html": "text/html; charset=utf-8",
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


def _speaker(entry: dict[str, Any]) -> str:
    """The name an entry's line or roll was said as, when not its actor's own
    (tabletop.scenes.speakers); "" otherwise, and for every entry recorded before speakers."""
    public = entry.get("public")
    speaker = public.get("speaker") if isinstance(public, dict) else None
    return speaker if isinstance(speaker, str) and speaker != entry.get("actor") else ""


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
                "speaker_md": _md_text(_speaker(entry)),
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


# --- the check that a page shows it ---------------------------------------------------------------


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
    entries = [as_javascript_reads(entry) for entry in doc.get("entries") or []]
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
            name = entry_name(index, entry)
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


def verify_text(data: str | bytes) -> Report:
    """Verify a JSON or HTML export. For an HTML file, also what it shows a reader: each entry's
    text and the head must be what its data holds (as its own verifier checks in the browser)."""
    text = decoded_text(data)
    doc = read_document(text)
    report = verify(doc)
    if is_html(text):
        try:
            report.problems.extend(shown_problems(doc, read_shown(text)))
        except RecursionError:
            raise LedgerError("Not a session ledger: its JSON is nested too deeply.") from None
    return report
