"""poison: `amount` damage in each of the next N start phases, DEF ignored, shields absorb it (R14)."""

from __future__ import annotations

from realms.engine.effects.ongoing import OngoingDamage


class Poison(OngoingDamage):
    name = "poison"
    verb = "poisons"


KIND = Poison()
