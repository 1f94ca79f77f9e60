"""Echo Realms plugged into the shared engine core (`simulate.engine.games.GAMES['realms']`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import realms.engine.agents  # noqa: F401  (registers the Echo Realms agents)
import realms.engine.ismcts_agent  # noqa: F401  (registers the Echo Realms search agents)
from realms.engine.events import EVENT_FIELDS, PAST_EVENT_FIELDS, SCHEMA_VERSION
from realms.engine.options import validate_options
from realms.engine.playbyplay import render_events
from realms.engine.setup import ArmySetup, normalize_setup
from realms.engine.state import RealmsState
from realms.engine.vocabulary import PLAYERS


class RealmsRules:
    """The Echo Realms rules as the core runner sees them."""

    name = "realms"
    schema_version = SCHEMA_VERSION
    players = PLAYERS
    event_fields = EVENT_FIELDS
    past_event_fields = PAST_EVENT_FIELDS

    def validate_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Options with defaults; OptionsError naming every bad one."""
        return validate_options(options)

    def new_state(
        self, setup: Any, options: dict[str, Any], seed: int, keep_log: bool, agents: Mapping[str, str] | None = None
    ) -> RealmsState:
        """A match at its first decision, from armies or from collections (Formation Round)."""
        state = RealmsState(options, seed, keep_log, agents)
        start = normalize_setup(setup)
        if isinstance(start, ArmySetup):
            state.start_battle({"a": start.a, "b": start.b})
        else:
            state.start_formation({"a": start.a, "b": start.b})
        return state

    def render(self, events: Sequence[dict[str, Any]]) -> str:
        """The play-by-play text of an event log."""
        return render_events(events)


RULES = RealmsRules()


def new_match(setup: Any, *, seed: int, options: Mapping[str, Any] | None = None, keep_log: bool = True) -> RealmsState:
    """A fresh Echo Realms match state (options validated), for step-by-step play."""
    return RULES.new_state(setup, validate_options(options), seed, keep_log)
