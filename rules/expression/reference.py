"""The dice reference: every construct of the language, grouped, with examples.

The site's dice reference page (``/dice/``) is drawn from ``REFERENCE`` alone, and a test rolls
every example and works out its odds, so the page never shows an example that does not work.
"""

from __future__ import annotations

from typing import NamedTuple


class Entry(NamedTuple):
    """One construct: its group on the page, its name, the spellings accepted (and where each
    comes from), what it means here, and examples (each rolls)."""

    group: str
    construct: str
    spellings: str
    meaning: str
    examples: tuple[str, ...]


REFERENCE: tuple[Entry, ...] = (
    # --- dice
    Entry("Dice", "Dice", "NdS, dS", "Roll N dice with S sides (up to 100 dice, d2 to d1000) and "
          "add them up.", ("3d6+2", "d20")),
    Entry("Dice", "Percentile die", "d%", "A d100.", ("d%",)),
    Entry("Dice", "Fate dice", "dF", "Fudge/Fate dice: each shows -1, 0 or +1.", ("4dF", "4dF+2")),
    # --- keep and drop
    Entry("Keep and drop", "Keep highest", "khN, kN (Roll20, Foundry, d20)",
          "Keep the N highest dice (N defaults to 1). d20's literal k3 (keep the 3s) is k=3 here.",
          ("4d6kh3", "2d20kh")),
    Entry("Keep and drop", "Keep lowest", "klN", "Keep the N lowest dice.", ("2d20kl1",)),
    Entry("Keep and drop", "Drop lowest", "dlN, dN (Roll20, Foundry), plN (d20)",
          "Drop the N lowest dice.", ("4d6d1", "4d6pl1")),
    Entry("Keep and drop", "Drop highest", "dhN (Roll20, Foundry), phN (d20)",
          "Drop the N highest dice.", ("3d6dh1",)),
    Entry("Keep and drop", "Keep or drop by face", "k>N, k<N, k=N, p<N, d>N (d20's selectors)",
          "Keep (k) or drop (p, d) the dice showing a face: > and < are strictly more/less.",
          ("4d6k>3", "4d6p<3")),
    # --- exploding
    Entry("Exploding dice", "Explode", "!, !N, !>N, !>=N, !<N, !=N (Roll20); x, x>=N (Foundry); "
          "eN (d20)", "A die on the top face (or the faces given) explodes: another die is added "
          "to the roll, and may explode in turn (at most 100 times in one roll). After ! a bare "
          "N or >N means N or more (Roll20); after x and e, >N means strictly more and a bare N "
          "exactly N.", ("3d6!", "2d10x", "1d6!>=5", "4d6e6kh3")),
    Entry("Exploding dice", "Compounding", "!! (Roll20)", "Explosions add to the die that "
          "exploded: one die, one number (a die compounds at most 100 times).", ("3d6!!",)),
    Entry("Exploding dice", "Penetrating", "!p (Roll20)", "Each die an explosion adds counts one "
          "less (it explodes on its face as rolled).", ("2d6!p",)),
    Entry("Exploding dice", "Explode once", "xo (Foundry)", "Each die written explodes at most "
          "once; the die it adds does not explode.", ("4d6xo",)),
    Entry("Exploding dice", "Reroll and add", "raN (d20)", "If any die shows N, one more die is "
          "added to the roll (one at most).", ("3d6ra6",)),
    # --- rerolls
    Entry("Rerolls", "Reroll until", "rN, r<N (Roll20); rrN, rr<N (Foundry, d20)", "Reroll a die "
          "as long as it shows the face(s): after r, <N means N or less (Roll20); after rr, "
          "strictly less. Foundry's r (once) is ro here. A reroll of every face is refused.",
          ("1d20r1", "2d6r<2", "1d20rr1")),
    Entry("Rerolls", "Reroll once", "roN, ro<N (Roll20, d20)", "Reroll a die once if it shows the "
          "face(s), and keep the new face whatever it is.", ("1d20ro1", "2d6ro<2")),
    # --- min / max
    Entry("Min and max", "Minimum", "miN (d20), minN (Foundry)", "Each die counts at least N.",
          ("4d6mi2",)),
    Entry("Min and max", "Maximum", "maN (d20), maxN (Foundry)", "Each die counts at most N.",
          ("4d6ma5", "4d8min2max7")),
    # --- success pools
    Entry("Success pools", "Count successes", ">N, <N, =N right after the dice, no space "
          "(Roll20); cs>N, cs>=N, csN (Foundry)", "Count the dice showing the face(s) instead of "
          "adding them: the total is the number of successes. Right after dice, >3 means 3 or more "
          "(Roll20); after cs, >3 means strictly more (Foundry). The card marks each die that "
          "counted.", ("8d6>3", "6d10cs>7", "5d10>=8")),
    Entry("Success pools", "Subtract failures", "fN, f<N (Roll20); dfN (Foundry)", "Each die "
          "showing the failure face(s) takes one success away (the total may go below zero).",
          ("6d10>=8f1", "6d10cs>7df1")),
    Entry("Success pools", "Count failures", "cfN, cf<N (Foundry)", "Count the dice showing the "
          "failure face(s).", ("6d10cf<3",)),
    # --- arithmetic
    Entry("Arithmetic", "Add and subtract", "+ -", "Add and subtract dice and numbers.",
          ("3d6 + 1d4 - 2",)),
    Entry("Arithmetic", "Multiply", "*", "Multiply (dice by dice too).", ("(1d6+2)*2", "1d4*1d4")),
    Entry("Arithmetic", "Divide", "/ //", "Divide; totals are whole numbers, so the result is "
          "rounded down (write ceil or round to round otherwise).", ("1d6/2", "3d6//2")),
    Entry("Arithmetic", "Rounding", "floor(a/b), ceil(a/b), round(a/b)", "Round a division down, "
          "up, or to the nearest (halves up). Around anything else they change nothing.",
          ("ceil(1d6/2)", "round(3d6/4)", "floor(1d10/3)")),
    Entry("Arithmetic", "Absolute value", "abs(x)", "The value without its sign.",
          ("abs(1d6-1d6)",)),
    Entry("Arithmetic", "Parentheses", "( )", "Group a part of the expression.",
          ("(1d6+1)*3",)),
    Entry("Arithmetic", "Rolled number of dice", "(expr)dS", "Roll the number of dice first.",
          ("(1d4+1)d6",)),
    # --- sets
    Entry("Sets", "Groups and sets", "{a, b}kh1 (Roll20), (a, b)kh1 (d20)", "Roll each "
          "expression of the set; keep, drop or count their totals (without a modifier the set "
          "adds them up).", ("{1d20, 1d20}kh1", "(1d20, 1d20)kl1", "{4d6kh3, 4d6kh3, 4d6kh3}dl1",
                             "{2d6, 2d6, 2d6}>=8")),
    # --- labels, comments, advantage
    Entry("Labels and comments", "Label", "[text] after a part", "A label kept on the card, "
          "never in the total.", ("1d8+3 [slashing]", "2d6 [fire] + 1d8 [cold]")),
    Entry("Labels and comments", "Comment", "# text at the end", "Flavour text on the card.",
          ("1d20+5 # attack",)),
    Entry("Advantage", "Advantage and disadvantage", "adv, dis (Avrae)", "The first 1d20 is "
          "rolled twice, keeping the higher (adv) or lower (dis): 1d20+5 adv is 2d20kh1 + 5.",
          ("1d20+5 adv", "1d20 dis")),
    # --- comparison
    Entry("Comparison", "Against a target", ">=, <=, >, <, == (after a space)", "Compare the "
          "whole total with a target: the card says success or failure, the total is 1 or 0, "
          "and the odds give the exact chance of success.", ("1d20+5 >= 15", "2d6 > 1d8")),
)  # fmt: skip

#: The groups in page order.
GROUPS: tuple[str, ...] = tuple(dict.fromkeys(e.group for e in REFERENCE))


def examples() -> list[str]:
    """Every example of the reference, in page order."""
    return [x for entry in REFERENCE for x in entry.examples]
