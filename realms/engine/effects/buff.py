"""buff: + amount to ATK, DEF or SPD for a duration."""

from __future__ import annotations

from realms.engine.effects.modifier import Modifier


class Buff(Modifier):
    name = "buff"
    positive = True
    sign = 1


KIND = Buff()
