"""The percentile sheet's columns (seed 004): skill values, stats, movement (Quickness, MV,
total penalty), plot points available and in total, development points."""

from tabletop.systems.models import Character, models, sheet_link


class PercentileSheet(Character):
    """A percentile character: the shared ``Character`` row plus this row."""

    character = sheet_link("percentile_sheet")
    # [{"name": "Climbing", "value": 55}, ...]
    skills = models.JSONField(default=list, blank=True)
    # free-form stats by name: {"Perceptivity": 5}
    attributes = models.JSONField(default=dict, blank=True)
    quickness = models.SmallIntegerField(default=0)
    mv = models.PositiveSmallIntegerField("MV", default=0)
    total_penalty = models.SmallIntegerField(default=0)
    plot_points = models.PositiveIntegerField("plot points available", default=0)
    plot_points_total = models.PositiveIntegerField(default=0)
    development_points = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            # A spend "reduces the number available but not the total" (seed 004).
            models.CheckConstraint(
                condition=models.Q(plot_points__lte=models.F("plot_points_total")),
                name="plot_points_within_total",
            )
        ]
