"""What one match costs at worst: CPU seconds of look-ahead (search) matches, and of greedy ones, in the
longest matches the API allows.

Prints figures, asserts nothing. Matches are played in this one process with their log kept (as a match
request keeps it; a study does not, which costs a little less); CPU time is this process's
(`time.process_time`), so other work on the machine moves it less than wall time would.

Search matches seat the search agent at every seat (two in Echo Realms, four in Akin Legends teams mode):
- Echo Realms, stalling armies: tanks in the Vanguard, healers and shielders in the Rearguard on both sides
  (blows of 1 damage that heals undo), so that every match runs to its round cap; then crowded ones, whose
  cultists summon tentacles until both lines are full (more units, so more decisions a round and dearer
  ones); at the default round cap (50) and at the highest one the API allows (200);
- Echo Realms, random legal armies of the starter set at the default caps (typical matches);
- Akin Legends, teams mode and duel: the official deck at the default caps (typical matches), then a
  stalling deck (every attack of every card is fire, so no defense, which needs two elements, can fall)
  at the default round cap (30) and at 200.
Then the greedy agent in the same worst cases: what bounds a study of greedy matches.

Each line: the matches' CPU seconds (median and highest), decisions, rounds, and the decisions the search
agents simulated (they count them: `agent.simulated`) per match and per decision.

    .venv/bin/python bench/search_cost.py [--seeds 3] [--max-rounds 50 200] [--only realms|legends]
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from realms.engine.cards import CharacterCard, cards_from_fixture  # noqa: E402
from realms.engine.formation import random_army  # noqa: E402
from simulate.engine.agents import get_agent  # noqa: E402
from simulate.engine.runner import play_match  # noqa: E402

STARTER = ROOT / "fixtures" / "realms_starter.json"
LEGENDS = ROOT / "fixtures" / "legends_official.json"

# Walls and healers: ATK 4 to 6 against DEF 8 to 10 deals 1 a blow (R8), which heals and shields undo.
STALL = {
    "a": [("iron-guardian", "vanguard"), ("aegis-paladin", "vanguard"), ("troll-tank", "vanguard"),
          ("aasimar-acolyte", "rearguard"), ("seraph-healer", "rearguard"),
          ("seraphine-voice-of-the-dawn", "rearguard"), ("shieldbearer-of-valdren", "rearguard")],
    "b": [("stoneshield-veteran", "vanguard"), ("brunhild-ironhelm-shield-of-the-realm", "vanguard"),
          ("reef-troll", "vanguard"), ("aasimar-acolyte", "rearguard"), ("seraph-healer", "rearguard"),
          ("shieldbearer-of-valdren", "rearguard"), ("runekeeper-sage", "rearguard")],
}
# The same with two Kraken Cultists a side: their tentacles fill both Vanguards (up to ten units a side).
CROWDED = {
    "a": [("iron-guardian", "vanguard"), ("aegis-paladin", "vanguard"), ("kraken-cultist", "rearguard"),
          ("kraken-cultist", "rearguard"), ("aasimar-acolyte", "rearguard"), ("seraph-healer", "rearguard"),
          ("shieldbearer-of-valdren", "rearguard")],
    "b": [("stoneshield-veteran", "vanguard"), ("troll-tank", "vanguard"), ("kraken-cultist", "rearguard"),
          ("kraken-cultist", "rearguard"), ("aasimar-acolyte", "rearguard"), ("seraph-healer", "rearguard"),
          ("seraphine-voice-of-the-dawn", "rearguard")],
}


def play(game: str, setup: Any, agent: str, seats: int, seed: int, options: dict[str, Any]) -> dict[str, Any]:
    """One match with `agent` at every seat: its CPU seconds, decisions, rounds and simulated decisions."""
    agents = [get_agent(agent, game) for _ in range(seats)]
    start = time.process_time()
    result = play_match(game, setup=setup, agents=agents, seed=seed, options=options, keep_log=True)
    cpu = time.process_time() - start
    return {"cpu": cpu, "actions": result.actions, "rounds": result.rounds, "reason": result.reason,
            "simulated": sum(int(getattr(a, "simulated", 0)) for a in agents)}


def report(title: str, rows: list[dict[str, Any]]) -> None:
    """One line of figures for a group of matches."""
    cpu = [r["cpu"] for r in rows]
    sims = [r["simulated"] for r in rows]
    actions = [r["actions"] for r in rows]
    line = (f"{title}: {len(rows)} matches, CPU s median {statistics.median(cpu):.3f}, max {max(cpu):.3f}; "
            f"decisions max {max(actions)}; rounds max {max(r['rounds'] for r in rows)}; "
            f"ends {', '.join(sorted({r['reason'] for r in rows}))}")
    if max(sims):
        per_decision = max(s / a for s, a in zip(sims, actions, strict=True))
        line += (f"; simulated decisions a match max {max(sims):,} ({per_decision:.0f} a decision of the match "
                 f"at most, on average over it; {1e6 * sum(cpu) / sum(sims):.1f} us of CPU each)")
    print(line, flush=True)


def armies(cards: dict[str, CharacterCard], sides: dict[str, list[tuple[str, str]]]) -> dict[str, Any]:
    """An Echo Realms setup from card slugs and lines."""
    return {"armies": {side: [(cards[slug], line) for slug, line in slots] for side, slots in sides.items()}}


def realms(seeds: int, caps: list[int], agent: str) -> None:
    """Echo Realms: stalling and crowded armies at each round cap, then random legal armies."""
    cards = {c.slug: c for c in cards_from_fixture(json.loads(STARTER.read_text()))}
    for name, sides in (("stalling armies", STALL), ("crowded stalling armies", CROWDED)):
        for cap in caps:
            rows = [play("realms", armies(cards, sides), agent, 2, seed, {"max_rounds": cap}) for seed in range(seeds)]
            report(f"Echo Realms {agent}, {name}, max_rounds {cap}", rows)
    if agent == "search":
        pool = list(cards.values())
        rng = random.Random(7)
        rows = [play("realms", {"armies": {"a": random_army(pool, rng), "b": random_army(pool, rng)}}, agent, 2,
                     seed, {}) for seed in range(max(seeds, 10))]
        report(f"Echo Realms {agent}, random legal armies, default caps", rows)


def legends(seeds: int, caps: list[int], agent: str) -> None:
    """Akin Legends: the official deck at the default caps, then the stalling deck at each round cap."""
    from legends.engine.cards import load_fixture_catalogue, parse_catalogue

    raw = load_fixture_catalogue(LEGENDS)
    stalling = copy.deepcopy(raw)
    for card in stalling["deck"]:
        card["attacks"] = ["fire", "fire"]
    decks = [("official deck", parse_catalogue(raw), [30] if agent == "search" else []),
             ("stalling deck", parse_catalogue(stalling), [30, *[c for c in caps if c != 30]])]
    for mode, seats in (("teams", 4), ("duel", 2)):
        players = [[("Ann", 1), ("Ben", 3)], [("Cat", 2), ("Dan", 4)]] if mode == "teams" else [[("Ann", 1)], [("Cat", 2)]]
        for deck, catalogue, deck_caps in decks:
            setup = {"mode": mode, "catalogue": catalogue, "teams": [
                {"spirit": spirit, "players": [{"name": n, "counter": c} for n, c in team]}
                for spirit, team in zip(("akin", "yulin"), players, strict=True)]}
            for cap in deck_caps:
                rows = [play("legends", setup, agent, seats, seed, {"max_rounds": cap}) for seed in range(seeds)]
                report(f"Akin Legends {agent}, {mode}, {deck}, max_rounds {cap}", rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=3, help="matches of each kind (seeds 0, 1, ...)")
    parser.add_argument("--max-rounds", type=int, nargs="+", default=[50, 200], help="round caps of the worst cases")
    parser.add_argument("--only", choices=["realms", "legends"], help="one game only")
    args = parser.parse_args()
    get_agent("search", "realms")  # imports the game's agents
    compiled = str(getattr(sys.modules["realms.engine.agents"], "__file__", "")).endswith(".so")
    print(f"Python {sys.version.split()[0]}, engines {'compiled (mypyc)' if compiled else 'plain Python'}")
    for agent in ("search", "greedy"):
        if args.only != "legends":
            realms(args.seeds, args.max_rounds, agent)
        if args.only != "realms":
            legends(args.seeds, args.max_rounds, agent)


if __name__ == "__main__":
    main()
