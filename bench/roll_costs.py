"""Queries and template renders per roll: one roll of every kind a roll form offers, counted.

Run with `make bench` (or `python -m bench.roll_costs`). For every registered system, every kind
of ``kinds_for(system)`` (its own roll forms and the dice box) and the modes ``public`` and ``gm``
(private to the GM), a fresh table is set up on a fresh SQLite database (a GM, two players, a
campaign of that system with the system's demo characters, an open scene) and one roll is made
through the socket's entry point, ``actions.run_command(command="roll", ...)``, with a roll form's
fields as the browser sends them and alice rolling with her demo character. The database is in
autocommit, as on daphne's database thread, so the broadcast (``transaction.on_commit``) renders
its frames inside the measurement; the command's outlet (``command_threads.Held``) collects
the messages instead of sending them. Counted per roll:

* queries: every query Django ran (``CaptureQueriesContext``), and how many of them the
  broadcast ran (reading the event and the tools back, after commit);
* renders: top-level template renders (``render_to_string``, ``get_template().render``; a render
  started inside another render is not top-level) and every template rendered, with each
  ``{% include %}`` and ``{% extends %}`` parent (Django's ``template_rendered`` signal).

The dice are seeded (``rules.core.default_rng``), so a kind rolls the same dice every run and
both counts are reproducible. Every cell is measured after one unmeasured pass over all cells
(template loading, caches). The Markdown report goes to bench/out/roll_costs.md, the numbers
to bench/out/roll_costs.json.
"""

from __future__ import annotations

import json
import os
import platform
import random
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from itertools import count
from pathlib import Path
from typing import Any

OUT = Path(__file__).parent / "out"
MODES = ("public", "gm")
SEED = 2024


# --- what differs between trees ------------------------------------------------------------------


def roll_forms() -> list[tuple[str, list[str]]]:
    """(system slug, the roll kinds its roll forms offer) for every registered system."""
    from tabletop import systems
    from tabletop.scenes.rollkinds import kinds_for

    return [(s.slug, [k.name for k in kinds_for(s.slug)]) for s in systems.all_systems()]


# --- the table ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Table:
    gm: Any
    alice: Any
    bob: Any
    scene: Any
    pcs: dict[str, Any]  # owner's role ("alice", "bob") -> their demo character


_tables = count(1)


def make_table(system: str) -> Table:
    """A GM, two players, a campaign of ``system`` with its demo characters, an open scene."""
    from django.contrib.auth import get_user_model

    from tabletop.campaigns.models import Campaign, Membership
    from tabletop.characters.actions import character_adjust, character_create
    from tabletop.characters.management.commands.seed_demo import demo_characters
    from tabletop.scenes import actions

    n = next(_tables)
    users = get_user_model().objects
    # No password: hashing one would cost more than everything measured here.
    people = {role: users.create_user(f"{role}{n}") for role in ("gm", "alice", "bob")}
    gm = people["gm"]
    campaign = Campaign.objects.create(name=f"Vault {n}", system=system, gm=gm)
    Membership.objects.create(campaign=campaign, user=gm, role="gm")
    for player in ("alice", "bob"):
        Membership.objects.create(campaign=campaign, user=people[player])
    pcs = {}
    for data in demo_characters(campaign):
        owner = people[data["owner"]]
        character = character_create(
            campaign=campaign,
            actor=owner,
            name=data["name"],
            role=data["role"],
            sheet=data["sheet"],
        )
        if data.get("currencies"):
            character = character_adjust(character=character, actor=gm, **data["currencies"])
        if data["owner"] != "gm" and data["owner"] not in pcs:
            pcs[data["owner"]] = character
    scene = actions.scene_create(campaign=campaign, actor=gm, name="The sunken vault")
    scene = actions.scene_open(scene=scene, actor=gm)
    return Table(gm, people["alice"], people["bob"], scene, pcs)


def roll_form_data(kind: str, table: Table) -> dict[str, Any]:
    """The fields a roll form sends for ``kind`` (strings, as a form sends them), for alice's
    demo character (templates/systems/<slug>/forms/, tabletop/systems/<slug>/rolls.py)."""
    fields: dict[str, dict[str, Any]] = {
        "expression": {"expression": "2d6+1"},
        "conductor_standard": {"skill_name": "Acrobatics", "difficulty": "7"},
        "conductor_attack": {"skill_name": "Weapon (Sword)", "foe": "", "difficulty": "4"},
        "conductor_heal": {"patient": str(table.pcs["bob"].pk), "foe": "", "difficulty": "3"},
        "conductor_poison": {"skill": "0"},
        "annulus_check": {
            "difficulty": "medium",
            "type_1": "Knowledge",
            "type_2": "",
            "check": "challenge",
            "perk_dice": "0",
        },
        "roll_and_keep": {
            "attribute": "Cunning",
            "speciality:Deceit": "on",
            "dice": "3",
            "specialities": "0",
            "keep": "2",
            "difficulty": "Standard",
        },
        "two_dice": {
            "attribute": "Might",
            "difficulty": "Normal",
            "resource": "Health",
            "penalty": "0",
            "attribute_value": "0",
            "resource_available": "0",
        },
        "percentile": {
            "skill": "Broadsword",
            "skill_value": "0",
            "column": "",
            "other_modifier": "0",
            "retry_failures": "0",
        },
        "percentile_running": {"pace": "2", "quickness": "0", "total_penalty": "0", "mv": "20"},
        "percentile_potency": {"potency": "30", "resistance": "0", "other_modifier": "0"},
        "percentile_breakage": {
            "potency_from": "potency",
            "potency": "10",
            "pounds": "200",
            "percent": "",
            "material": "",
            "resistance": "0",
        },
        "percentile_pure_chance": {"chance": "50"},
    }
    return fields[kind]


# --- counting ------------------------------------------------------------------------------------


@dataclass
class Cost:
    system: str
    kind: str
    mode: str
    queries: int = 0
    broadcast_queries: int = 0
    renders: int = 0  # top-level
    renders_all: int = 0  # with includes and extends parents
    messages: int = 0  # channel-layer messages the broadcast sent
    events: int = 0  # events the roll recorded
    outcome: str = ""  # what the seeded dice gave: the same before and after
    templates: list[str] = field(default_factory=list)  # the top-level renders, in order


class Counters:
    """Template renders (top-level and all), while ``on``."""

    def __init__(self) -> None:
        self.on = False
        self.depth = 0
        self.top = 0
        self.all = 0
        self.names: list[str] = []

    def reset(self) -> None:
        self.depth = self.top = self.all = 0
        self.names = []

    def install(self) -> None:
        from django.template import base as template_base
        from django.test.signals import template_rendered

        render = template_base.Template.render

        def counted_render(template: Any, context: Any) -> Any:
            if self.on and self.depth == 0:
                self.top += 1
                self.names.append(str(template.name))
            self.depth += 1
            try:
                return render(template, context)
            finally:
                self.depth -= 1

        def rendered(**kwargs: Any) -> None:
            if self.on:
                self.all += 1

        template_base.Template.render = counted_render
        template_rendered.connect(rendered, weak=False)


@contextmanager
def seeded_dice(seed: int) -> Iterator[None]:
    """Every roll inside rolls from ``random.Random(seed)`` (the production CSPRNG otherwise)."""
    import rules.core

    rng = random.Random(seed)
    saved = rules.core.default_rng
    rules.core.default_rng = lambda: rng
    try:
        yield
    finally:
        rules.core.default_rng = saved


def measure(system: str, kind: str, mode: str, counters: Counters) -> Cost:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tabletop.scenes import actions, command_threads, deliver
    from tabletop.scenes.models import SceneEvent

    table = make_table(system)
    frame = {
        "command": "roll",
        "roll_kind": kind,
        "mode": mode,
        "character": str(table.pcs["alice"].pk),
        **roll_form_data(kind, table),
    }
    cost = Cost(system, kind, mode)
    broadcast = deliver.broadcast_event

    def counted_broadcast(event: Any, **kwargs: Any) -> None:
        before = len(connection.queries)
        try:
            broadcast(event, **kwargs)  # with the sheets the roll saved (record.note_sheet)
        finally:
            cost.broadcast_queries += len(connection.queries) - before

    last_seq = table.scene.last_seq
    held = command_threads.Held()
    deliver.broadcast_event = counted_broadcast
    counters.reset()
    counters.on = True
    try:
        with seeded_dice(SEED), CaptureQueriesContext(connection) as queries:
            actions.run_command(
                command="roll", scene_id=table.scene.pk, user=table.alice, data=frame, sends=held
            )
    finally:
        counters.on = False
        deliver.broadcast_event = broadcast
    cost.queries = len(queries)
    cost.renders, cost.renders_all, cost.messages = counters.top, counters.all, len(held.messages)
    cost.templates = counters.names
    recorded = list(SceneEvent.objects.filter(scene=table.scene, seq__gt=last_seq).order_by("seq"))
    cost.events = len(recorded)
    roll = recorded[0].public if recorded[0].audience == "everyone" else recorded[0].secret
    cost.outcome = str(roll.get("summary", ""))
    return cost


# --- the run --------------------------------------------------------------------------------------


def setup_django(database: Path) -> None:
    os.environ["DATABASE_URL"] = f"sqlite:///{database}"
    os.environ["DJANGO_SETTINGS_MODULE"] = "tabletop.settings"
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.core.management import call_command
    from django.test.utils import setup_test_environment

    setup_test_environment()  # templates send template_rendered
    call_command("migrate", verbosity=0)


def run() -> tuple[list[Cost], float]:
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="roll_costs_") as tmp:
        setup_django(Path(tmp) / "db.sqlite3")
        counters = Counters()
        counters.install()
        cells = [(s, k, m) for s, kinds in roll_forms() for k in kinds for m in MODES]
        for cell in cells:  # warm: templates loaded, caches filled
            measure(*cell, counters)
        costs = [measure(*cell, counters) for cell in cells]
        from django.db import connection

        connection.close()
    return costs, time.monotonic() - started


def markdown(costs: list[Cost], seconds: float) -> str:
    import django

    lines = [
        "# Queries and template renders per roll",
        "",
        f"One roll of each kind, per system and mode, through `actions.run_command`: Django "
        f"{django.get_version()}, SQLite, Python {platform.python_version()}, "
        f"{time.strftime('%Y-%m-%d')}, {seconds:.1f} s. queries: all (of which the broadcast "
        f"after commit); renders: top-level templates (every template, with includes and "
        f"extends parents); messages: channel-layer sends; outcome: the seeded dice's result.",
        "",
        "| system | kind | mode | queries | renders | messages | events | outcome |",
        "|---|---|---|---:|---:|---:|---:|---|",
    ]
    for c in costs:
        lines.append(
            f"| {c.system} | {c.kind} | {c.mode} | {c.queries} ({c.broadcast_queries}) "
            f"| {c.renders} ({c.renders_all}) | {c.messages} | {c.events} | {c.outcome} |"
        )
    return "\n".join(lines) + "\n"


def compared(before: list[dict[str, Any]], costs: list[Cost]) -> str:
    """One table, before -> after, for the cells both runs measured (``--before`` a JSON report
    of another tree's run, e.g. the commit before a restructure)."""
    old = {(c["system"], c["kind"], c["mode"]): c for c in before}
    lines = [
        "## Before → after",
        "",
        "| system | kind | mode | queries | of which broadcast | renders | all renders |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for c in costs:
        b = old.get((c.system, c.kind, c.mode))
        if b is None:
            continue
        cells = [
            f"{b[name]} → {getattr(c, name)}"
            for name in ("queries", "broadcast_queries", "renders", "renders_all")
        ]
        lines.append(f"| {c.system} | {c.kind} | {c.mode} | " + " | ".join(cells) + " |")
    missing = sorted(set(old) - {(c.system, c.kind, c.mode) for c in costs})
    if missing:
        lines += ["", "Measured before only: " + ", ".join(" ".join(m) for m in missing) + "."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m bench.roll_costs",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--before", type=Path, help="another run's roll_costs.json to compare")
    args = parser.parse_args(argv)
    costs, seconds = run()
    text = markdown(costs, seconds)
    if args.before is not None:
        text += "\n" + compared(json.loads(args.before.read_text()), costs)
    OUT.mkdir(exist_ok=True)
    (OUT / "roll_costs.md").write_text(text)
    (OUT / "roll_costs.json").write_text(json.dumps([asdict(c) for c in costs], indent=1))
    print(text)
    return 0


def run_isolated() -> int:
    """``main`` in its own process (``make bench``): Django's setup and its test environment
    stay out of the runner's process."""
    import subprocess

    root = Path(__file__).resolve().parent.parent
    return subprocess.run([sys.executable, "-m", "bench.roll_costs"], cwd=root).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
