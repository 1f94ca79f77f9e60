"""regen: `amount` healing in each of the next N start phases, never above max HP (R14)."""

from __future__ import annotations

from realms.engine.effects.ongoing import Regen

KIND = Regen()
