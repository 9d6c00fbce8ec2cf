"""The registry of game systems: each one is a package ``tabletop/systems/<slug>/`` that
registers a ``System`` here, the way a Foundry VTT game system registers with the core.

Generic code (campaigns, characters, scenes, their templates) never names a system: it asks this
registry for the campaign's ``System`` and uses what the system offers (its roll kinds, procedure
views, websocket commands, event kinds, character sheet, ruleset settings form, the spends its
cards offer, the work it has due, its demo table). Adding a system never edits generic code.

The packages listed in ``settings.TABLETOP_SYSTEMS`` are imported once Django's apps are ready
(``tabletop.systems.apps``); each package's ``__init__`` calls ``register``. A test may register
a system of its own. This module imports nothing of the project, so anything may import it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from types import ModuleType
from typing import Any


@dataclass(frozen=True)
class Currency:
    """A currency or harm a system's characters carry (bennies, plot points, hits...), declared
    once: a whole-number column of the character that the database keeps at zero or above, so a
    spend is one conditional UPDATE that cannot overdraw. Play and the GM change it, never the
    sheet form. Generic code (the Party tool, the GM's dashboard and awards, the character
    page, the adjust form) reads these declarations and names no currency itself."""

    #: The column: "bennies".
    field: str
    #: As a sheet or a table heads it: "Bennies", "Plot points available".
    label: str
    #: One and many, as a card says it: "benny", "bennies".
    one: str
    many: str
    #: The players' own (seeds 002, 004): an NPC's or a foe's shows "—" and the GM steps none.
    players_only: bool = False
    #: The GM's dashboard steps it up and down (+/−), and the GM may award it live.
    gm_steps: bool = False
    #: Harm, marked and healed, rather than a currency given and taken back.
    harm: bool = False
    #: The column counting every one ever gained of currency ``total_of`` ("plot_points_total"
    #: of "plot_points"): never below what is available, shown with it as "2 / 5", and raised
    #: with it by an award (seed 004: a spend "reduces the number available but not the total").
    total_of: str | None = None
    #: A typo of a million bennies is a mistake, not a reward.
    maximum: int = 999
    #: A currency the GM names per campaign (any game's inspiration, hero points, luck...):
    #: ``words(ruleset) -> (label, one, many)`` under the campaign's validated ruleset, which
    #: replace ``label``, ``one`` and ``many`` (those stay as the words no campaign chose).
    words: Callable[[Mapping[str, Any]], tuple[str, str, str]] | None = None

    def named(self, ruleset: Mapping[str, Any] | None) -> Currency:
        """This currency in the words of the campaign whose ruleset this is."""
        if self.words is None or ruleset is None:
            return self
        label, one, many = self.words(ruleset)
        return replace(self, label=label, one=one, many=many)


@dataclass(frozen=True)
class Rollable:
    """One rollable number of a character's sheet, as its system declares it (``System.rollables``)
    and the scene's Sheet tool draws it: a button named "Roll Acrobatics (3)" that opens the roll
    form of ``roll_kind`` with the character and ``fields`` picked, in the table-wide mode."""

    #: The heading it is listed under, in the order first named: "Skills", "Attacks".
    section: str
    #: What is rolled: "Acrobatics", "Weapon (Sword)".
    label: str
    #: The number the sheet shows for it: "3", "+2", "55".
    value: str
    #: The roll kind (``RollKind.name``) whose roll form makes the roll; one its roll forms offer.
    roll_kind: str
    #: The roll form's fields that pick it ({"skill_name": "Acrobatics"}): a select's option, a
    #: radio's value, a text; a checkbox named here is ticked, every other one of the roll
    #: form is unticked. Fields not named keep what the player left in them (the difficulty).
    fields: Mapping[str, str]
    #: The button's first words: "Roll", "Attack with".
    verb: str = "Roll"
    #: A short line beside the button: what the roll is made of ("roll 5, keep 4").
    note: str = ""

    @property
    def name(self) -> str:
        """The button's accessible name: "Roll Acrobatics (3)"."""
        return f"{self.verb} {self.label} ({self.value})"


@dataclass(frozen=True)
class DieReading:
    """What one of a system's stored dice says on a card beyond what every die says.

    ``die``: the die as the generic ``{% die %}`` reads it (``value``, ``sides``, ``kept``,
    ``exploded``, ``bonus``, ``source``), for a die the system stores in words of its own;
    ``marks``: its own notes, each (the words under the die, its state: a class its stylesheet
    draws), read after kept or dropped, the card's mark and "exploded"."""

    die: Mapping[str, Any]
    marks: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class System:
    """Everything the generic code needs to know of one game system.

    ``roll_kinds``: ``RollKind``s (tabletop.scenes.rollkinds) its roll forms offer.
    ``procedure_views``: ``ProcedureView``s (tabletop.scenes.procedures) shown on its scene
    page.
    ``commands``: websocket commands (tabletop.scenes.commands.Command) of its procedures.
    ``event_kinds``: ``EventKind``s (tabletop.scenes.kinds) its actions record.
    ``sheet``: ``sheet(ruleset) -> SheetSpec`` (tabletop.characters.sheets): the parts its
    character sheet is made of under a validated ruleset (tabletop.characters.parts: each keeps
    fields of its sheet model and checks, starts, shows and edits them), and its currencies.
    ``settings_form``: the GM's ruleset settings form class, if the generic one
    (tabletop.campaigns.ruleset_forms, driven by the shape of ``rules.DEFAULT_RULESET``) won't do.
    ``card_controls``: ``card_controls(event, data) -> dict`` the spend buttons a roll card
    offers (bennies, plot points, ...), read by the generic card template's system partial.
    ``scene_extras``: ``scene_extras(scene, viewer, ruleset) -> dict`` more context for the
    scene page's system partial (``templates/systems/<slug>/scene_side.html``), if any.
    ``due``: ``due(*, scene, now, context) -> int`` tasks the heartbeat and follow-ups run
    (windows closing); each returns how many events it recorded, recording them with
    ``context`` (a ``CommandContext``: where their broadcasts go).
    ``demo``: ``demo(campaign, users) -> None`` builds the demo table's characters.
    ``rollables``: ``rollables(character, ruleset) -> list[Rollable]`` every number of the
    character's sheet its rules roll (a skill, an attribute, a training perk...), in reading
    order: the scene's Sheet tool draws each as a button that fills its roll form.
    ``currencies``: the ``Currency``s and harm its characters carry, in the order its tables
    show them: columns of its ``sheet_model``.
    ``pools``: ``pools(character, spec) -> list[dict]`` its characters' pools, each
    ``{"name", "current", "max"}`` (two_dice's resources), shown beside its currencies in the
    Party tool, the GM's table and the Sheet tool, if it has any.
    ``sheet_model``: the model its characters are kept as (its app's ``models.py``): a
    subclass of ``Character`` holding its sheet's fields, currencies and harm in its own
    table, one row per character, keyed to the character's row. None: plain ``Character``s.
    ``dashboard``: ``dashboard(scene) -> (template, context)`` what waits for the GM on the
    scene's dashboard (approvals, foes waiting to strike back), if anything.
    ``turns``: the turn tracker's part that is this system's (a ``TurnExtras``,
    tabletop.scenes.procedures.turns: the pending action's template and context), if it has one.
    ``initiative``: its turns are an initiative order (rules.turns: every entry, a character
    or a free name, its own turn, sorted by initiative rolled or typed) rather than teams.
    ``read_die``: ``read_die(d) -> DieReading`` how its stored dice read on its cards, which
    draw them with ``{% die d reading="<slug>" %}``, if they carry more than every die does (a
    d100's face and sign, a benny's raise).
    ``stylesheets``, ``scripts``: its own static files (paths under its app's ``static/``,
    ``systems/<slug>/...``), which the scene page of its campaigns loads after the generic ones.
    """

    slug: str
    label: str
    rules: ModuleType
    roll_kinds: tuple[Any, ...] = ()
    procedure_views: tuple[Any, ...] = ()
    commands: tuple[Any, ...] = ()
    event_kinds: tuple[Any, ...] = ()
    sheet: Callable[[Mapping[str, Any]], Any] | None = None
    settings_form: type | None = None
    card_controls: Callable[..., dict[str, Any]] | None = None
    scene_extras: Callable[..., dict[str, Any]] | None = None
    due: tuple[Callable[..., int], ...] = ()
    demo: Callable[..., None] | None = None
    rollables: Callable[[Any, Mapping[str, Any]], list[Rollable]] | None = None
    currencies: tuple[Currency, ...] = ()
    sheet_model: type | None = None
    pools: Callable[[Any, Any], list[dict[str, Any]]] | None = None
    dashboard: Callable[[Any], tuple[str, dict[str, Any]]] | None = None
    turns: Any = None
    initiative: bool = False
    read_die: Callable[[Mapping[str, Any]], DieReading] | None = None
    stylesheets: tuple[str, ...] = ()
    scripts: tuple[str, ...] = ()

    def effective_ruleset(self, overrides: Mapping[str, Any] | None) -> dict[str, Any]:
        """The campaign's overrides merged over the defaults and checked (``rules/``)."""
        return self.rules.validate_ruleset(overrides)

    def currency(self, field: str, ruleset: Mapping[str, Any] | None = None) -> Currency | None:
        """The currency kept in column ``field``, if this system has it (in the words of the
        campaign whose effective ruleset is ``ruleset``, when given)."""
        found = next((c for c in self.currencies if c.field == field), None)
        return found.named(ruleset) if found is not None else None

    def currencies_in(self, ruleset: Mapping[str, Any] | None) -> tuple[Currency, ...]:
        """Its currencies in the words of the campaign whose effective ruleset is ``ruleset``."""
        return tuple(c.named(ruleset) for c in self.currencies)

    def total_for(self, field: str) -> Currency | None:
        """The column that counts every one of currency ``field`` ever gained, if any."""
        return next((c for c in self.currencies if c.total_of == field), None)


_SYSTEMS: dict[str, System] = {}


class NameTaken(Exception):
    """Two things registered under one name (two systems with one slug, two commands, event
    kinds or roll kinds with one name): refused at start-up, as one would silently replace the
    other's behaviour at the table."""


def claim(registry: dict[str, Any], name: str, item: Any, *, what: str, owner: str) -> None:
    """Put ``item`` in ``registry`` under ``name``, refusing a name something else holds
    (the same item again is fine: a module imported twice)."""
    held = registry.get(name)
    if held is not None and held is not item:
        raise NameTaken(
            f"Two {what}s are named {name!r}: {owner} registers one, and another was "
            f"registered before it ({_owner_of(held)}). Rename one of them."
        )
    registry[name] = item


def release(registry: dict[str, Any], name: str, item: Any) -> None:
    """Take ``item`` out of ``registry`` if it is what ``name`` holds (never another's)."""
    if registry.get(name) is item:
        del registry[name]


def _owner_of(item: Any) -> str:
    module = getattr(getattr(item, "run", None) or item, "__module__", "") or ""
    return f"from {module}" if module else "by generic code"


def register(system: System) -> System:
    """Add a system; its roll kinds, procedure views, commands and event kinds join the generic
    registries that the scene code reads. A slug or a name another system (or generic code)
    holds is refused with ``NameTaken``, and then nothing of the system is registered."""
    claim(_SYSTEMS, system.slug, system, what="system", owner=f"system {system.slug!r}")
    try:
        for hook in _on_register:
            hook(system)
    except NameTaken:
        unregister(system.slug)  # each registry takes back only what is this system's
        raise
    return system


def unregister(slug: str) -> None:
    """Take a system away again (tests that registered their own)."""
    system = _SYSTEMS.pop(slug, None)
    if system is not None:
        for hook in _on_unregister:
            hook(system)


#: Generic registries subscribe here (they must not import the system packages).
_on_register: list[Callable[[System], None]] = []
_on_unregister: list[Callable[[System], None]] = []


def on_register(added: Callable[[System], None], removed: Callable[[System], None]) -> None:
    """Call ``added`` for every system registered (now and later), ``removed`` when one goes."""
    _on_register.append(added)
    _on_unregister.append(removed)
    for system in list(_SYSTEMS.values()):
        added(system)


def get(slug: str) -> System:
    """The registered system ``slug`` (KeyError if there is none)."""
    return _SYSTEMS[slug]


def find(slug: str) -> System | None:
    return _SYSTEMS.get(slug)


def all_systems() -> Iterator[System]:
    return iter(list(_SYSTEMS.values()))


def choices() -> list[tuple[str, str]]:
    """(slug, label) of every system, for the campaign's system field."""
    return [(s.slug, s.label) for s in _SYSTEMS.values()]
