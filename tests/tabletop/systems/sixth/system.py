"""The coin ``System``, registered when its app is ready (``apps.py``)."""

from __future__ import annotations

import sys

from tabletop.systems import api
from tests.tabletop.systems.sixth import coin, models

SYSTEM = api.register(
    api.System(
        slug="coin",
        label="Coin (one toss)",
        sheet_model=models.CoinSheet,
        rules=sys.modules[coin.__name__],  # its rules live beside its web side
        roll_kinds=(
            api.RollKind(
                name="coin_flip",
                label="Toss a coin",
                card="systems/coin/rolls/flip.html",
                form="systems/coin/forms/flip.html",
                roll=coin.roll,
                odds=coin.odds,
                stale=frozenset({"coin_tally"}),
            ),
        ),
        procedure_views=(
            api.ProcedureView(
                name="coin_tally",
                label="Tosses",
                template="systems/coin/procedures/tally.html",
                context=coin.tally,
            ),
        ),
        commands=(api.Command("luck", coin.luck, seq=api.Raw("seq")),),
        event_kinds=(
            api.EventKind(
                "luck",
                "systems/coin/events/luck.html",
                frozenset({"party", "dashboard"}),
                public=coin.Luck,
                mirror="spends",  # a spend of luck, in the Discord mirror's words
            ),
        ),
        card_controls=coin.card_controls,
        sheet=coin.sheet,
        rollables=coin.rollables,
        demo=coin.demo,
        currencies=(coin.LUCK,),
        stylesheets=("systems/coin/coin.css",),
    )
)
