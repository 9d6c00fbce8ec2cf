"""Issue 36's question, measured: lark (the parser generator d20 uses) or our table-driven hand
parser for the dice language?

A lark grammar of the same language is generated from the same spellings table
(``rules.expression.spellings.MODIFIERS``), parsed LALR with lark's contextual lexer (as d20
does), and timed on the shared expressions of ``bench/expression_language.py`` against
``rules.expression.parse``. The lark side stops at lark's parse tree: building our frozen nodes
from it (a ``Transformer``, and the checks with positions that the hand parser does as it reads)
would only add to its time, so its figure is a lower bound. Then the error messages of both on
the same mistakes. Run: ``.venv/bin/python -m bench.expression_lark`` (prints Markdown).

One construct is left out of the lark grammar: whitespace inside a spelling (the old dialect's
``4d6 d l 1``, which must keep parsing), since lark's lexer drops spaces between tokens and a
spelling is one token; it would need a pass over the text first. Roll20's bare success target
(``8d6>3`` counts, ``8d6 > 3`` compares) is told apart by making a condition one token.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import lark

from bench.expression_language import _shared
from rules import expression as ex
from rules.expression import spellings


def grammar() -> str:
    """The dice language as a lark grammar, its modifier names from the spellings table."""
    names = sorted({s.text for s in spellings.MODIFIERS}, key=lambda t: (-len(t), t))
    modifier = " | ".join(f'"{n}"i' for n in names)
    return rf"""
?start: expr
expr: compare ADVANTAGE? COMMENT?
?compare: sum (COMPARE sum)?
?sum: term (SIGN term)*
?term: SIGN* product
?product: atom (MULOP atom)*
?atom: (NUMBER | dice | set | group | function) LABEL*
dice: (NUMBER | group)? "d"i SIDES (modifier | COND)*
SIDES: /[0-9]+|%|[fF]/
modifier: MODIFIER COND?
MODIFIER: {modifier}
// a condition is one token, so "8d6>3" (no space: a success target) and "8d6 > 3" (a
// comparison) are told apart by the lexer
COND.2: /(>=|<=|>|<|=)?[0-9]+/
set: "{{" sum ("," sum)* "}}" (modifier | COND)*
group: "(" sum ("," sum)* ","? ")" (modifier | COND)*
function: FUNCTION "(" sum ")"
FUNCTION: "floor"i | "ceil"i | "round"i | "abs"i
ADVANTAGE.2: /\b(adv|dis|advantage|disadvantage)\b/i
COMPARE: ">=" | "<=" | "==" | ">" | "<"
SIGN: "+" | "-"
MULOP: "*" | "//" | "/"
LABEL: /\[[^\]\[]+\]/
COMMENT: /#.*/
NUMBER: /[0-9]+/
%import common.WS
%ignore WS
"""


# Mistakes a player makes, the same for both parsers.
MISTAKES = ["3d6y", "4d6kh3!", "1d20 advantag", "2d6!>", "{1d6", "1d6 [fire", "3d", "1d20+5 dsi"]


def _lark_text(text: str) -> str:
    return text


def _best_us(fn, calls: int = 400) -> float:
    best = float("inf")
    for _ in range(20):
        start = time.perf_counter_ns()
        for _ in range(calls // 20):
            fn()
        best = min(best, (time.perf_counter_ns() - start) / (calls // 20) / 1000)
    return best


def main() -> int:
    """Print the measurement as Markdown."""
    started = time.perf_counter()
    parser = lark.Lark(grammar(), parser="lalr", lexer="contextual")
    build_ms = (time.perf_counter() - started) * 1000
    rows = []
    for text, _, _ in _shared():
        theirs_text = _lark_text(text)
        parser.parse(theirs_text)  # it must read every shared expression

        def ours(t=text):
            ex.clear_caches()
            return ex.parse(t)

        rows.append((text, _best_us(ours), _best_us(lambda t=theirs_text: parser.parse(t))))
    lines = [
        f"lark {lark.__version__}, LALR + contextual lexer; grammar built in {build_ms:.0f} ms "
        "(once per process).",
        "",
        "| expression | ours: text to checked tree (µs) | lark: text to parse tree only (µs) |",
        "|---|---:|---:|",
    ]
    lines += [f"| `{t}` | {o:.1f} | {lk:.1f} |" for t, o, lk in rows]
    ratio = sorted(lk / o for _, o, lk in rows)[len(rows) // 2]
    lines += ["", f"Median lark ÷ ours: {ratio:.2f}×.", ""]
    lines += ["| mistake | ours | lark |", "|---|---|---|"]
    for text in MISTAKES:
        try:
            ex.parse(text)
            ours_msg = "(accepted)"
        except ex.ExpressionError as error:
            ours_msg = str(error)
        try:
            parser.parse(_lark_text(text))
            lark_msg = "(accepted)"
        except lark.UnexpectedInput as error:
            first = str(error).strip().splitlines()[0]
            lark_msg = f"{type(error).__name__} at column {error.column}: {first}"
        lines.append(f"| `{text}` | {ours_msg.replace('|', '/')} | {lark_msg.replace('|', '/')} |")
    here = Path(__file__).resolve().parent.parent / "rules" / "expression"
    hand = sum(len((here / f).read_text().splitlines()) for f in ("parser.py", "spellings.py"))
    lines += [
        "",
        f"Lines: our parser and spellings table {hand}; the lark grammar above "
        f"{len(grammar().strip().splitlines())} lines, plus a Transformer to our nodes and the "
        "position checks (d20's Transformer and AST, diceast.py, are 452 lines).",
    ]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
