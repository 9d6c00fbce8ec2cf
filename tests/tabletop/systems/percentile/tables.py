"""The percentile tables the tests play at, each on tests.support.tables.make_table:

- ``percentile_table``: Tomalfson (the seed's example) and Ilsa, for tracked maneuvers,
  perception and the special rolls;
- ``plot_point_table``: Ann and Ben with their plot points."""

from __future__ import annotations

from tabletop.characters.models import Character
from tests.support.tables import make_table


def percentile_table():
    table = make_table(system="percentile")
    tom = Character.objects.create(
        campaign=table.campaign,
        owner=table.alice,
        name="Tomalfson",
        quickness=-9,
        mv=26,
        total_penalty=-65,
        attributes={"Perceptivity": 5},
        skills=[{"name": "Climbing", "value": 20}, {"name": "Detect Traps", "value": 15}],
    )
    ilsa = Character.objects.create(
        campaign=table.campaign,
        owner=table.bob,
        name="Ilsa",
        quickness=12,
        mv=20,
        total_penalty=-5,
        skills=[{"name": "Running", "value": 40}, {"name": "Lockpicking", "value": 35}],
    )
    return table, tom, ilsa


def plot_point_table(points: int = 3):
    table = make_table(system="percentile")
    ann = Character.objects.create(
        campaign=table.campaign,
        owner=table.alice,
        name="Ann",
        skills=[{"name": "Climb", "value": 30}],
        plot_points=points,
        plot_points_total=points,
    )
    ben = Character.objects.create(
        campaign=table.campaign,
        owner=table.bob,
        name="Ben",
        plot_points=points,
        plot_points_total=points,
    )
    return table, ann, ben
