"""The sheet fields' move out of ``Character`` keeps every value, both ways (issue 28).

On a database holding characters of all five systems, written before the move (characters
0001), migrating to the latest migrations puts each character's values in exactly one sheet
row, in its own system's table, unchanged; migrating back puts them on ``Character`` again,
unchanged, with the ``plot_points_within_total`` constraint back. The test ends migrated to
the latest again, so the test database is left as it was.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tabletop import systems

#: The 16 columns ``Character`` held for the systems, with their defaults (characters 0001).
DEFAULTS = {
    "attributes": {},
    "skills": [],
    "specialities": [],
    "mana": {},
    "resources": {},
    "training_perks": {},
    "difficulty": 3,
    "quickness": 0,
    "mv": 0,
    "total_penalty": 0,
    "bennies": 0,
    "plot_points": 0,
    "plot_points_total": 0,
    "development_points": 0,
    "hits": 0,
    "lasting_hits": 0,
}

#: Each system's sheet model (its app label is the system's slug).
SHEETS = {
    "annulus": "AnnulusSheet",
    "conductor": "ConductorSheet",
    "percentile": "PercentileSheet",
    "roll_and_keep": "RollAndKeepSheet",
    "two_dice": "TwoDiceSheet",
}

#: One character per system with non-default values in that system's fields.
VALUES = {
    "annulus": {"training_perks": {"Knowledge": 2, "Force": 1}},
    "conductor": {
        "skills": [{"name": "Weapon", "specialty": "Sword", "value": 4}],
        "difficulty": 5,
        "bennies": 2,
        "hits": 1,
        "lasting_hits": 1,
    },
    "percentile": {
        "skills": [{"name": "Climbing", "value": 55}],
        "attributes": {"Perceptivity": 7},
        "quickness": 12,
        "mv": 15,
        "total_penalty": -10,
        "plot_points": 2,
        "plot_points_total": 5,
        "development_points": 3,
    },
    "roll_and_keep": {
        "attributes": {"Cunning": 3, "Intelligence": 2},
        "mana": {"White": 1, "Red": 2},
        "specialities": ["Swordsmanship", "Etiquette"],
    },
    "two_dice": {
        "attributes": {"Might": 2, "Wits": -1},
        "resources": {"Health": {"current": 4, "max": 6}},
    },
}


def migrate(executor: MigrationExecutor, targets: list[tuple[str, str | None]]):
    """Migrate to ``targets``; the apps (historical models) as they are there."""
    executor.migrate(targets)
    executor.loader.build_graph()  # the applied migrations changed
    # (app, None) means none of the app's migrations: no node, nothing to add to the state.
    return executor.loader.project_state([t for t in targets if t[1] is not None]).apps


@pytest.mark.django_db(transaction=True)
def test_sheet_fields_move_to_sheets_and_back_unchanged():
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    # Before the move: characters at 0001, no system's sheet table made yet (the five's, and
    # any other installed system's, as the tests' sixth); every other app (campaigns, scenes,
    # auth, ...) stays at its latest.
    sheets = {slug for slug, _name in latest if systems.find(slug) is not None}
    assert set(SHEETS) <= sheets
    before = [(app, name) for app, name in latest if app not in sheets and app != "characters"]
    before += [("characters", "0001_initial")] + [(slug, None) for slug in sorted(sheets)]

    try:
        apps = migrate(executor, before)
        User = apps.get_model("auth", "User")
        Campaign = apps.get_model("campaigns", "Campaign")
        Character = apps.get_model("characters", "Character")
        assert set(DEFAULTS) == {f.name for f in Character._meta.concrete_fields} - {
            "id",
            "kind",
            "name",
            "notes",
            "created_at",
            "updated_at",
            "campaign",
            "owner",
        }

        gm = User.objects.create(username="gm", password="!")
        expected = {}  # character pk -> (system, the 16 fields' values)
        for slug, values in VALUES.items():
            campaign = Campaign.objects.create(name=f"A {slug} campaign", system=slug, gm=gm)
            character = Character.objects.create(
                campaign=campaign, owner=gm, kind="pc", name=f"Hero of {slug}", **values
            )
            expected[character.pk] = (slug, DEFAULTS | values)
            if slug == "conductor":
                plain = Character.objects.create(
                    campaign=campaign, owner=gm, kind="npc", name="Plain conductor extra"
                )
                expected[plain.pk] = (slug, dict(DEFAULTS))

        # Forwards: each character's values in one row of its own system's sheet table.
        apps = migrate(executor, latest)
        for slug, model_name in SHEETS.items():
            Sheet = apps.get_model(slug, model_name)
            own = [f.name for f in Sheet._meta.local_concrete_fields if f.name != "character"]
            assert own, slug
            rows = {
                row.pop("character_id"): row for row in Sheet.objects.values("character_id", *own)
            }
            mine = {pk: fields for pk, (system, fields) in expected.items() if system == slug}
            assert set(rows) == set(mine), f"{slug}: sheet rows for the wrong characters"
            for pk, fields in mine.items():
                assert rows[pk] == {name: fields[name] for name in own}, f"{slug} character {pk}"

        # Backwards: the same values on ``Character`` again.
        apps = migrate(executor, before)
        Character = apps.get_model("characters", "Character")
        found = {row.pop("id"): row for row in Character.objects.values("id", *DEFAULTS)}
        assert found == {pk: fields for pk, (_, fields) in expected.items()}
        with connection.cursor() as cursor:
            constraints = connection.introspection.get_constraints(cursor, Character._meta.db_table)
        assert constraints["plot_points_within_total"]["check"]
    finally:
        migrate(executor, latest)
