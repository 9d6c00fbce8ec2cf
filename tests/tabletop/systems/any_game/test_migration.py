"""Any game's one migration: its sheet table comes (with the CHECK that keeps the currency at
zero or above) and goes, and the test leaves the database migrated to the latest again."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

TABLE = "any_game_anygamesheet"


def migrate(executor: MigrationExecutor, targets) -> None:
    executor.migrate(targets)
    executor.loader.build_graph()  # the applied migrations changed


@pytest.mark.django_db(transaction=True)
def test_the_sheet_table_comes_with_its_check_and_goes():
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    try:
        migrate(executor, [("any_game", None)])
        assert TABLE not in connection.introspection.table_names()
        migrate(executor, [("any_game", "0001_initial")])
        assert TABLE in connection.introspection.table_names()
        apps = executor.loader.project_state([("any_game", "0001_initial")]).apps
        user = apps.get_model("auth", "User").objects.create(username="gm", password="!")
        campaign = apps.get_model("campaigns", "Campaign").objects.create(
            name="Friday", system="any_game", gm=user
        )
        sheet = apps.get_model("any_game", "AnyGameSheet").objects.create(
            campaign=campaign, owner=user, name="Mira"
        )
        assert sheet.table_currency == 0
        with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {TABLE} SET table_currency = -1 WHERE character_id = %s", [sheet.pk]
            )
    finally:
        migrate(executor, latest)
