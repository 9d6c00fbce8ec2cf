"""The GM's awards and adjustments live (any system: tabletop/scenes/actions/awards.py), and the
GM dashboard that carries them: hidden results reach the GM's dashboard only."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.core.exceptions import PermissionDenied, ValidationError

from tabletop.scenes import actions
from tabletop.scenes.models import SceneEvent
from tests.tabletop.scenes.conftest import connect, events
from tests.tabletop.systems.conductor.tables import conductor_table
from tests.tabletop.systems.percentile.tables import plot_point_table


@pytest.mark.django_db
def test_gm_awards_and_takes_back_live():
    table, hero, _ = conductor_table(bennies=0)
    event = actions.award(
        scene=table.scene, actor=table.gm, character=hero, field="bennies", amount=2
    )
    hero.refresh_from_db()
    assert hero.bennies == 2 and event.public["text"] == "gave 2 bennies"
    with pytest.raises(PermissionDenied):
        actions.award(
            scene=table.scene, actor=table.alice, character=hero, field="bennies", amount=1
        )
    with pytest.raises(ValidationError, match="below zero"):
        actions.award(scene=table.scene, actor=table.gm, character=hero, field="bennies", amount=-3)
    with pytest.raises(ValidationError, match="no plot points"):
        actions.award(
            scene=table.scene, actor=table.gm, character=hero, field="plot_points", amount=1
        )
    hero.refresh_from_db()
    assert hero.bennies == 2 and len(events("award")) == 1


@pytest.mark.django_db
def test_an_award_of_plot_points_raises_the_total_too():
    table, ann, _ = plot_point_table(points=1)
    actions.award(scene=table.scene, actor=table.gm, character=ann, field="plot_points", amount=2)
    ann.refresh_from_db()
    assert (ann.plot_points, ann.plot_points_total) == (3, 3)


# --- over the sockets ---


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_db_after")
async def test_hidden_results_reach_the_gm_dashboard_only():
    table, hero, _ = await sync_to_async(conductor_table)()
    gm = await connect(table.gm, table.scene)
    bob = await connect(table.bob, table.scene)
    await gm.send(command="roll", roll_kind="expression", expression="1d1000+424242", mode="secret")
    await gm.drain()
    await bob.drain()
    event = await SceneEvent.objects.aget(kind="roll")
    total = str(event.secret["result"]["total"])
    # The roll's entry joins the top of the GM's hidden results (the dashboard's list).
    hidden = gm.everything().split('hx-swap-oob="afterbegin:#gm-hidden-list"')
    assert len(hidden) == 2 and total in hidden[1]
    assert total not in bob.everything() and "424242" not in bob.everything()
    await gm.close()
    await bob.close()
