"""taunt: for N rounds the target's Basic Attacks may only aim at the taunter, whenever they can reach it.

A restriction (effects/restraint.py): while it stands, the taunted unit's Basic Attack targets (R12's)
narrow to the unit that taunted it, if that unit is alive and among them; otherwise nothing changes (a
unit always has an action). Several taunts: the oldest whose taunter it can reach decides. Its Main
Ability is free. It is negative (a cleanse removes it), ends with its taunter (R17: `persists` would change
nothing, so the spec refuses it), and aims at enemies only: the spec refuses it on itself or on allies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from realms.engine import selectors
from realms.engine.effects.base import Checker, Effect, ValueContext
from realms.engine.effects.restraint import Restraint
from realms.engine.effects.words import Mention, rounds
from realms.engine.units import Active, Unit

if TYPE_CHECKING:
    from realms.engine.battlefield import Battlefield
    from realms.engine.observation import UnitInfo


class Taunt(Restraint):
    name = "taunt"
    needs_source = True

    def parse(self, check: Checker, data: dict[str, Any], path: str) -> dict[str, Any]:
        params = super().parse(check, data, path)
        sel = selectors.BY_NAME.get(data.get("target", ""))
        if sel is not None and (sel.code == selectors.SEL_SELF or sel.whose == selectors.ALLIES):
            check.fail(f"{path}.target", "a taunt aims at enemies: their Basic Attacks are what it restricts")
        if data.get("persists") is True:
            check.fail(f"{path}.persists", "a taunt binds to its taunter, so it does nothing once its taunter falls")
        return params

    def attack_targets(self, bf: Battlefield, u: Unit, a: Active, targets: list[Unit]) -> list[Unit]:
        """Only the taunter, while it stands among the targets R12 allows."""
        taunter = bf.by_id.get(a.src)
        if taunter is not None and taunter.alive and taunter in targets:
            return [taunter]
        return targets

    def words(self, eff: Effect, ref: Mention | None) -> tuple[str, bool]:
        """ "taunts the chosen enemy for 2 rounds (its Basic Attacks must aim at this character whenever they
        can reach it)"."""
        assert ref is not None
        whose = "their" if ref.kind == "group" else "its"
        return (f"taunts {ref.noun}{',' if ref.remark else ''} for {rounds(eff.duration)} "
                f"({whose} Basic Attacks must aim at this character whenever they can reach it)"), False

    def on_enemy(self, eff: Effect, power: int, v: UnitInfo, ctx: ValueContext) -> float:
        """An enemy's blows drawn away from the weaker allies, for a few rounds (worth less than a silence)."""
        return 0.05 * (v.atk + 1.0) * min(eff.duration, 2)


KIND = Taunt()
