"""The coin sheet: the face a character favours, and its luck (a currency the GM steps and the
character's player spends to toss again)."""

from tabletop.systems.models import Character, models, sheet_link


class CoinSheet(Character):
    """A coin character: the shared ``Character`` row plus this row."""

    class Face(models.TextChoices):
        HEADS = "heads", "Heads"
        TAILS = "tails", "Tails"

    character = sheet_link("coin_sheet")
    favours = models.CharField(max_length=5, choices=Face.choices, default=Face.HEADS)
    luck = models.PositiveIntegerField(default=0)
