"""The dice reference page (``/dice/``): every construct of the dice language, grouped, each with
examples drawn from ``rules.expression.REFERENCE`` (the one table; a test rolls every example).

Open to everyone, logged in or not: it is documentation. Clicking an example rolls it here
(``/dice/roll/``, an htmx partial) with ``secrets.SystemRandom`` and shows the card and its
exact odds: a demonstration, never a game roll, nothing recorded. Anyone may roll the page's
own examples; a member may also try any expression of their own (the odds of a stranger's
arbitrary text are work a page open to the world should not do for free).
"""

from __future__ import annotations

import secrets
from fractions import Fraction
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from rules import expression
from rules.core import RulesError
from rules.expression.reference import GROUPS, REFERENCE, examples
from tabletop.scenes.rollkinds import odds_rows, percent


@require_GET
def dice_reference(request: HttpRequest) -> HttpResponse:
    """The page: each group of constructs with its spellings, meaning and examples."""
    groups = [(name, [e for e in REFERENCE if e.group == name]) for name in GROUPS]
    return render(request, "dice/reference.html", {"groups": groups})


@require_GET
def dice_reference_roll(request: HttpRequest) -> HttpResponse:
    """One demonstration roll of ``?e=`` (an htmx partial): the card as the dice box draws it
    and the exact odds, or the error that says where the text went wrong."""
    text = request.GET.get("e", "")[: expression.MAX_LENGTH + 1]
    context: dict[str, Any] = {"text": text}
    if text not in _EXAMPLES and not request.user.is_authenticated:
        context["error"] = "Log in to try expressions of your own; the examples roll for anyone."
        return render(request, "dice/_demo.html", context)
    try:
        result = expression.roll(text, rng=secrets.SystemRandom())
    except RulesError as error:
        context["error"] = str(error)
        return render(request, "dice/_demo.html", context)
    context["data"] = {"result": result.to_dict()}
    context["result"] = result
    try:
        dist = expression.distribution(result.expression)
    except RulesError as error:
        context["odds_error"] = str(error)
    else:
        compare = isinstance(expression.parse(result.expression).body, expression.Compare)
        labels = {0: "failure", 1: "success"} if compare else None
        context["odds"] = {"rows": odds_rows(dict(sorted(dist.items())), labels=labels)}
        if compare:
            context["chance"] = percent(dist.get(1, Fraction(0)))
    return render(request, "dice/_demo.html", context)


_EXAMPLES = frozenset(examples())
