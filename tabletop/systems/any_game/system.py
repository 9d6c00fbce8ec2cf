"""The any_game ``System``: what this game system brings to the generic code, registered when
its app is ready (``apps.py``)."""

from rules import any_game as rules_module
from tabletop.systems import api
from tabletop.systems.any_game import currency, models, settings, sheet

SYSTEM = api.register(
    api.System(
        slug="any_game",
        sheet_model=models.AnyGameSheet,
        # The new-campaign form's first choice: what it is, then what it brings in one line.
        label="Any game (D&D, Pathfinder, yours: dice notation, your currency, initiative)",
        rules=rules_module,
        commands=currency.COMMANDS,
        event_kinds=currency.EVENT_KINDS,
        currencies=(currency.CURRENCY,),
        scene_extras=currency.scene_extras,
        sheet=sheet.sheet,
        settings_form=settings.AnyGameSettingsForm,
        demo=sheet.demo,
        initiative=True,
    )
)
