"""What the kinds that restrict a unit's actions share (silence, ...): a lasting effect with no amount
whose legality hook (`Standing.bars_ability`, `attack_targets`) the unit's legal actions ask while it stands
(`rounds.act_legal`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from realms.engine.effects.base import Effect
from realms.engine.effects.lasting import LastingKind

if TYPE_CHECKING:
    from realms.engine.trigger_kinds import Trigger


class Restraint(LastingKind):
    """A lasting effect that restricts the actions of the unit it stands on; negative (a cleanse removes it)."""

    keys = frozenset({"duration"})
    has_amount = False
    restricts = True
    reads_round = True

    def one_round_never_matters(self, eff: Effect, trigger: Trigger | None) -> str:
        """R14: for 1 round on a unit that has already acted this round, it ends before that unit acts again."""
        if trigger is not None and trigger.acted and eff.target == trigger.acted:
            return (f"a 1-round {self.name} on a unit that has already acted this round never stops anything: "
                    "give it 2 rounds or more")
        return ""
