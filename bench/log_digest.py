"""One digest over the event logs of many seeded matches, to show that a change of the engines'
code leaves every log byte-identical.

    .venv/bin/python bench/log_digest.py [--game realms|legends|both] [--matches 2000]

Echo Realms: random legal starter-set armies and Formation Rounds from the whole set, every
agent pairing (random, greedy, search: search in one match out of 25, as it is slow) and both
tie-break options. Akin Legends: teams and duels of the official set, setups drawn from the
seed (so every protector appears), every agent pairing. Prints the number of matches and
events and a SHA-256 over every log in order; run it before and after a change and compare.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from legends.engine.cards import load_fixture_catalogue, parse_catalogue  # noqa: E402
from realms.engine.cards import cards_from_fixture  # noqa: E402
from realms.engine.formation import random_army  # noqa: E402
from simulate.engine import events as event_log  # noqa: E402
from simulate.engine.runner import play_match  # noqa: E402

AGENTS = ("random", "greedy", "search")


def pairing(i: int, seats: int) -> list[str]:
    """The agents of match i: every pairing in turn, search only once in 25 matches."""
    names = ["search" if i % 25 == 0 and k == i % seats else AGENTS[(i + k) % 2] for k in range(seats)]
    if i % 3 == 0:
        names.reverse()
    return names


def realms_matches(count: int) -> Any:
    """Every Echo Realms match of the digest, as play_match keyword arguments."""
    cards = cards_from_fixture(json.loads((ROOT / "fixtures" / "realms_starter.json").read_text()))
    rng = random.Random(9)
    for i in range(count):
        if i % 10 == 0:
            setup: dict[str, Any] = {"collections": {"a": cards, "b": cards}}
        else:
            setup = {"armies": {"a": random_army(cards, rng), "b": random_army(cards, rng)}}
        options = {"tie_break": ("random", "alternate")[i % 2], "max_rounds": (50, 20)[i % 3 == 1]}
        yield {"setup": setup, "agents": pairing(i, 2), "seed": i, "options": options}


def legends_matches(count: int) -> Any:
    """Every Akin Legends match of the digest."""
    catalogue = parse_catalogue(load_fixture_catalogue(ROOT / "fixtures" / "legends_official.json"))
    for i in range(count):
        duel = i % 2 == 1
        per_team = 1 if duel else 2
        # Counters dealt so that teammates never play one after the other (L5): 1 and 3 against 2 and 4.
        teams = [
            {
                "spirit": ("akin", "yulin")[(t + i) % 2],
                "players": [{"name": f"P{t}{k}", "counter": t + 1 + 2 * k} for k in range(per_team)],
            }
            for t in range(2)
        ]
        setup = {"mode": "duel" if duel else "teams", "teams": teams, "catalogue": catalogue}
        yield {"setup": setup, "agents": pairing(i, 2 * per_team), "seed": i, "options": {}}


def digest(game: str, count: int) -> None:
    """Play the matches and print the digest of their logs."""
    h = hashlib.sha256()
    events = 0
    source = realms_matches(count) if game == "realms" else legends_matches(count)
    for kwargs in source:
        result = play_match(game, keep_log=True, **kwargs)
        assert result.events is not None
        events += len(result.events)
        h.update(event_log.dumps(result.events).encode())
    print(f"{game}: {count} matches, {events} events, sha256 {h.hexdigest()}")


def main() -> None:
    """Parse the arguments and print the digests."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=("realms", "legends", "both"), default="both")
    parser.add_argument("--matches", type=int, default=2000)
    args = parser.parse_args()
    for game in ("realms", "legends") if args.game == "both" else (args.game,):
        digest(game, args.matches)


if __name__ == "__main__":
    main()
