"""burn: as poison (a name of its own for cards and cleanses): `amount` damage in each of N start phases."""

from __future__ import annotations

from realms.engine.effects.ongoing import OngoingDamage


class Burn(OngoingDamage):
    name = "burn"
    verb = "burns"


KIND = Burn()
