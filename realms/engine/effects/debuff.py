"""debuff: − amount to ATK, DEF or SPD for a duration (never below 0)."""

from __future__ import annotations

from realms.engine.effects.modifier import Modifier


class Debuff(Modifier):
    name = "debuff"
    sign = -1
    gained = False  # given to itself: "gives itself -2 SPD"


KIND = Debuff()
