"""The plugin API: the whole of the generic code a game system (tabletop/systems/<slug>/) may use,
in one place. A system imports the project only from here (``from tabletop.systems import api``
or ``from tabletop.systems.api import ...``), plus ``rules/`` and Django; a layout test holds it
to that (tests/tabletop/test_layout.py). What a system PROVIDES is the ``System`` it registers
(tabletop/systems/__init__.py documents each of its fields).

The names, by what a system does with them:

- **Register**: ``System`` (``initiative=True``: its turns are an initiative order), ``register``,
  ``Currency`` (its currencies and harm; ``words``: one the GM names per campaign), ``Rollable``
  (its Sheet tool's buttons), ``DieReading`` (what its dice say on a card). Its app's
  ``apps.py`` subclasses ``tabletop.systems.apps.SystemConfig`` instead: it is imported before
  any model is loaded, so it cannot import this module.
- **Its sheet**: its ``models.py`` declares its sheet model on ``tabletop.systems.models``
  (loaded with the models, before this module can be); ``Character``, ``SheetSpec`` and the
  parts it lists, each keeping fields of the sheet model (``NamedNumbers``, ``Pools``,
  ``Numbers`` of ``Number``, ``OneOf``, ``SkillList``, ``FreeStats``, ``TaggedNames``); the
  ruleset readers ``first_of``, ``int_or``, ``links_from``, ``names_from``; ``display_skill``;
  ``character_adjust`` (the GM's changes to currencies); the demo table's seats ``GM``, ``PC``,
  ``NPC``, ``FOE``, ``by_position``.
- **Its ruleset settings form**: ``RulesetForm``, ``Hint``, ``NESTED``, ``ROWS_ADDED``,
  ``ROWS_FIXED``, ``ROWS_NULL``.
- **Its roll kinds**: ``RollKind``, ``RollOutcome``, ``ROLL_KINDS``; field readers
  ``field_int``, ``field_int_or_zero``, ``field_str``; odds and bands ``odds_rows``,
  ``stored_odds``, ``percent``, ``ordered_bands``, ``hit_bands``, ``hits_band``.
- **Its commands**: ``Command`` and the fields a frame is parsed by (``Raw``, ``Blank``,
  ``Text``, ``Whole``, ``Flag``, ``Choice``, ``Picks``, ``Rolling``, ``Member``, ``Members``,
  ``Frame``, ``Parsed``).
- **Its events and actions**: ``EventKind``, ``ANY_AUDIENCE``, ``Audience``, ``Scene``,
  ``SceneEvent``, ``roll_data``, ``with_sheet`` (an event's character as its sheet);
  ``scene_action`` and the action kit (``scene_locked``), which hands each action its
  command's ``CommandContext`` (passed on to ``record_event``/``record_roll``); a procedure's state
  (``procedure_state``, ``store_state``); saving rows in few statements (``save_together``,
  ``change_row``: a sheet changed from the sheet as the command read it, if its row still
  holds that, else from the row locked); recording (``record_event``, ``record_roll``,
  ``reveal_event``, ``note_sheet``); spends (``pay``, ``amend``, ``require_latest_roll``,
  ``is_latest_roll``, ``lock_roll``); who may act (``require_open``, ``require_player``,
  ``campaign_character``, ``character_for_roll``, ``character_locked``:
  ``character_locked(model, pk)``, a sheet model's row locked); form values (``whole``,
  ``row_number`` for a row's id or seq, ``sheet_int``, ``form_list``); the dice
  (``game_dice``); ``canonical_json``.
- **Its procedure views**: ``ProcedureView``; the turn tracker's (``turns_state``,
  ``require_started``, ``close_pending``, ``TurnExtras``, ``TURNS_VIEW``,
  ``turn_participant_id``).
"""

from __future__ import annotations

from typing import Any

from tabletop.campaigns.ruleset_forms import (
    NESTED,
    ROWS_ADDED,
    ROWS_FIXED,
    ROWS_NULL,
    Hint,
    RulesetForm,
)
from tabletop.characters.actions import character_adjust
from tabletop.characters.demo import FOE, GM, NPC, PC, by_position
from tabletop.characters.models import Character
from tabletop.characters.parts import (
    FreeStats,
    NamedNumbers,
    Number,
    Numbers,
    OneOf,
    Pools,
    SkillList,
    TaggedNames,
    display_skill,
)
from tabletop.characters.sheets import (
    SheetSpec,
    first_of,
    int_or,
    links_from,
    names_from,
)
from tabletop.scenes import dice
from tabletop.scenes.access import require_open, require_player
from tabletop.scenes.actions.rolls import record_roll
from tabletop.scenes.actions.spends import amend, pay, require_latest_roll
from tabletop.scenes.actions.turns import close_pending, require_started, turns_state
from tabletop.scenes.commands import (
    Blank,
    Choice,
    Command,
    Flag,
    Frame,
    Member,
    Members,
    Parsed,
    Picks,
    Raw,
    Rolling,
    Text,
    Whole,
)
from tabletop.scenes.commitments import canonical_json
from tabletop.scenes.context import CommandContext
from tabletop.scenes.fastpath import change_row, character_locked, save_together
from tabletop.scenes.kinds import ANY_AUDIENCE, EventKind
from tabletop.scenes.kit import scene_action, scene_locked
from tabletop.scenes.models import Audience, Scene, SceneEvent, roll_data, with_sheet
from tabletop.scenes.procedures import ProcedureView
from tabletop.scenes.procedures.state import procedure_state, store_state
from tabletop.scenes.procedures.turns import NAME as TURNS_VIEW
from tabletop.scenes.procedures.turns import TurnExtras
from tabletop.scenes.procedures.turns import participant_id as turn_participant_id
from tabletop.scenes.record import note_sheet, record_event, reveal_event
from tabletop.scenes.rollkinds import (
    ROLL_KINDS,
    RollKind,
    RollOutcome,
    field_int,
    field_int_or_zero,
    field_str,
    hit_bands,
    hits_band,
    odds_rows,
    ordered_bands,
    percent,
    stored_odds,
)
from tabletop.scenes.rows import (
    campaign_character,
    character_for_roll,
    is_latest_roll,
    lock_roll,
)
from tabletop.scenes.values import form_list, row_number, sheet_int, whole
from tabletop.systems import Currency, DieReading, Rollable, System, register


def game_dice(rng: Any = None) -> Any:
    """The dice a game rolls (``secrets.SystemRandom``, or ``rng`` when given). Looked up at
    each roll, so a test that scripts the dice (tests/support/dice.py) reaches every system."""
    return dice.game_dice(rng)


__all__ = [
    "ANY_AUDIENCE",
    "Audience",
    "Blank",
    "Character",
    "Choice",
    "Command",
    "CommandContext",
    "Currency",
    "DieReading",
    "EventKind",
    "FOE",
    "Flag",
    "Frame",
    "FreeStats",
    "GM",
    "Hint",
    "Member",
    "Members",
    "NESTED",
    "NPC",
    "NamedNumbers",
    "Number",
    "Numbers",
    "OneOf",
    "PC",
    "Parsed",
    "Picks",
    "Pools",
    "ProcedureView",
    "ROLL_KINDS",
    "ROWS_ADDED",
    "ROWS_FIXED",
    "ROWS_NULL",
    "Raw",
    "RollKind",
    "RollOutcome",
    "Rollable",
    "Rolling",
    "RulesetForm",
    "Scene",
    "SceneEvent",
    "SheetSpec",
    "SkillList",
    "System",
    "TURNS_VIEW",
    "TaggedNames",
    "Text",
    "TurnExtras",
    "Whole",
    "amend",
    "by_position",
    "campaign_character",
    "canonical_json",
    "change_row",
    "character_adjust",
    "character_for_roll",
    "character_locked",
    "close_pending",
    "display_skill",
    "field_int",
    "field_int_or_zero",
    "field_str",
    "first_of",
    "form_list",
    "game_dice",
    "hit_bands",
    "hits_band",
    "int_or",
    "is_latest_roll",
    "links_from",
    "lock_roll",
    "names_from",
    "note_sheet",
    "odds_rows",
    "ordered_bands",
    "pay",
    "percent",
    "procedure_state",
    "record_event",
    "record_roll",
    "register",
    "require_latest_roll",
    "require_open",
    "require_player",
    "require_started",
    "reveal_event",
    "roll_data",
    "save_together",
    "scene_action",
    "scene_locked",
    "sheet_int",
    "store_state",
    "stored_odds",
    "turn_participant_id",
    "turns_state",
    "whole",
    "row_number",
    "with_sheet",
]
