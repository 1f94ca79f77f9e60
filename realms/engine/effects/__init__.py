"""The effect kinds, one module each (see `base`): `KINDS` maps a kind's name to it."""

from __future__ import annotations

from realms.engine.effects import (
    buff,
    burn,
    cleanse,
    cooldown,
    damage,
    debuff,
    dispel,
    heal,
    move,
    poison,
    regen,
    shield,
    silence,
    summon,
)
from realms.engine.effects.base import EffectKind

KINDS: dict[str, EffectKind] = {
    m.KIND.name: m.KIND
    for m in (damage, heal, shield, buff, debuff, poison, burn, regen, silence, cooldown, move, summon, cleanse, dispel)
}
EFFECT_KINDS = tuple(KINDS)
LASTING_KINDS = tuple(name for name, kind in KINDS.items() if kind.lasting)
ONGOING_KINDS = tuple(name for name, kind in KINDS.items() if kind.ongoing)
