"""The auditor catches a broken log: real logs, each corrupted in one way per rule, are all flagged.

Each corruption changes one thing a faulty engine could get wrong (a marker beyond the cap, a
card drawn from below the top, counters passed the wrong way, an action taken that was not
offered, a hidden card marked visible to the wrong seat, a redraw drawing back its own discards,
a seed shown to a seat, ...). The uncorrupted logs pass.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import Any

import pytest

from legends.engine.game import play_legends_match

from .audit import Audit
from .helpers import duel_setup, small_deck, teams_setup

Log = list[dict[str, Any]]


@functools.cache
def logs() -> tuple[Log, ...]:
    """Real logs covering every protector, both modes, refills, heal choices, pierces and Spy looks."""
    out: list[Log] = []
    pairs = [("spy", "siege-master"), ("spring-warden", "flame-herald"), ("archivist", "wanderer"),
             ("tide-keeper", "gale-rider"), ("stone-sentinel", "spy"), ("siege-master", "spring-warden")]
    for i, protectors in enumerate(pairs):
        for seed in range(4):
            agents = ["greedy"] * 4 if seed % 2 else ["random", "greedy", "random", "greedy"]
            out.append(play_legends_match(setup=teams_setup(protectors=protectors), agents=agents,
                                          seed=100 * i + seed).events)
    for seed in range(6):
        out.append(play_legends_match(setup=duel_setup(protectors=(None, None), defenses=(None, None)),
                                      agents=["random", "greedy"], seed=seed).events)
    for seed in range(3):  # random redraws run through the pile: refills
        out.append(play_legends_match(setup=teams_setup(protectors=("wanderer", "archivist")),
                                      agents=["random"] * 4, seed=seed, options={"max_rounds": 12}).events)
    for seed in range(2):  # small decks: refills in the middle of redraws, redraws short of cards (L8)
        setup = teams_setup(protectors=("wanderer", "archivist"))
        setup["catalogue"] = small_deck(30)
        out.append(play_legends_match(setup=setup, agents=["random"] * 4, seed=seed,
                                      options={"max_rounds": 12}).events)
        setup = duel_setup(protectors=("wanderer", "archivist"))
        setup["catalogue"] = small_deck(16)
        out.append(play_legends_match(setup=setup, agents=["random", "greedy"], seed=seed,
                                      options={"max_rounds": 12}).events)
    return tuple(out)


def seats(log: Log) -> list[str]:
    """The player ids, in setup order (match_start)."""
    return [p["id"] for t in log[0]["teams"] for p in t["players"]]


def redraw_draws(log: Log, i: int) -> list[int]:
    """The indexes of the draws and the refill that follow redraw i (its cards)."""
    out = []
    for j in range(i + 1, len(log)):
        if log[j]["type"] == "shuffle" or (log[j]["type"] == "draw" and log[j]["reason"] == "redraw"):
            out.append(j)
        else:
            break
    return out


def test_the_real_logs_pass():
    for log in logs():
        assert Audit(log).problems == []
    kinds = {e["type"] for log in logs() for e in log}
    assert {"spy", "pierce", "facedown", "shuffle"} <= kinds
    assert any(e["type"] == "shuffle" and e["reason"] == "refill" for log in logs() for e in log)
    assert any(e["type"] == "heal" and e["chosen_by"] == "agent" for log in logs() for e in log)
    # L8: refills during redraws, and redraws falling short of cards, are among them.
    assert any(log[j]["type"] == "shuffle" for log in logs() for i, e in enumerate(log) if e["type"] == "redraw"
               for j in redraw_draws(log, i))
    assert any(e["type"] == "redraw" and e["short"] for log in logs() for e in log)


# ------------------------------------------------------------------ corruptions, one per rule


def where(log: Log, kind: str, test: Callable[[dict], bool] = lambda e: True) -> int | None:
    return next((i for i, e in enumerate(log) if e["type"] == kind and test(e)), None)


def other_design(log: Log, slug: str) -> str:
    return next(c["slug"] for c in log[0]["deck"] if c["slug"] != slug)


def live_slot(log: Log, i: int, team: int) -> tuple[str, str] | None:
    """An opposing (defense, element) not taken by allocation i: a marker a faulty cap would add."""
    taken = {tuple(p) for p in log[i]["placements"]}
    for d in log[0]["teams"][1 - team]["defenses"]:
        for element in d["elements"]:
            if (d["slug"], element) not in taken and not any(
                    e["type"] == "destroyed" and e["defense"] == d["slug"] for e in log[:i]):
                return d["slug"], element
    return None


def cap_exceeded(log: Log) -> bool:
    """One more marker than attack cards, the cap raised to match (what the old Siege Master did)."""
    i = where(log, "allocation", lambda e: e["placed"] == e["attack_cards"] > 0)
    if i is None or live_slot(log, i, log[i]["team"]) is None:
        return False
    e = log[i]
    e["placements"].append(list(live_slot(log, i, e["team"])))
    e["placed"] += 1
    e["cap"] += 1
    if log[i - 1]["type"] == "decision":
        log[i - 1]["action"][1].append(e["placements"][-1])
        log[i - 1]["offered"].append(log[i - 1]["action"])
    return True


def cap_field(log: Log) -> bool:
    i = where(log, "allocation")
    log[i]["cap"] += 1
    return True


def draw_not_top(log: Log) -> bool:
    i = where(log, "draw", lambda e: bool(e["cards"]))
    if i is None:
        return False
    log[i]["cards"][0] = other_design(log, log[i]["cards"][0])
    return True


def deal_not_top(log: Log) -> bool:
    a, b = where(log, "deal"), where(log, "deal", lambda e: e["player"] != log[where(log, "deal")]["player"])
    log[a]["cards"][0], log[b]["cards"][0] = log[b]["cards"][0], log[a]["cards"][0]
    return log[a]["cards"][0] != log[b]["cards"][0]


def refill_not_the_discards(log: Log) -> bool:
    i = where(log, "shuffle", lambda e: e["reason"] == "refill" and len(set(e["order"])) > 1)
    if i is None:
        return False
    order = log[i]["order"]
    j = next(k for k in range(1, len(order)) if order[k] != order[0])
    order[0] = order[j]
    return True


def deck_not_shuffled_deck(log: Log) -> bool:
    log[2]["order"][0] = other_design(log, log[2]["order"][0])
    return True


def counters_wrong_way(log: Log) -> bool:
    i = where(log, "counters")
    if i is None:
        return False
    e = log[i]
    e["after"] = {p: (c % len(e["before"])) + 1 for p, c in e["before"].items()}  # 1 -> 2 instead of 2 -> 1
    return True


def turn_out_of_order(log: Log) -> bool:
    """A turn played by a seat other than the counter holder whose turn it was."""
    i = where(log, "turn")
    log[i]["player"] = next(p for p in seats(log) if p != log[i]["player"])
    return True


def action_not_offered(log: Log) -> bool:
    i = where(log, "decision", lambda e: e["stage"] == "play")
    log[i]["action"] = ["effect", "no-such-card"]
    return True


def offered_missing_one(log: Log) -> bool:
    i = where(log, "decision", lambda e: len(e["offered"]) > 1)
    e = log[i]
    e["offered"] = [a for a in e["offered"] if a != e["action"]][1:] + [e["action"]]
    return True


def offered_illegal_extra(log: Log) -> bool:
    i = where(log, "decision", lambda e: e["stage"] == "play")
    card = next(a[1] for a in log[i]["offered"] if a[0] == "effect")
    log[i]["offered"].append(["attack", card, "lightning"])
    return True


def facedown_seen_by_another(log: Log) -> bool:
    i = where(log, "facedown")
    log[i]["visible_to"] = [p for p in seats(log) if p != log[i]["player"]][:1] + [log[i]["player"]]
    return True


def hand_made_public(log: Log) -> bool:
    i = where(log, "deal")
    log[i]["visible_to"] = seats(log)
    return True


def turn_decision_made_public(log: Log) -> bool:
    i = where(log, "decision", lambda e: e["stage"] == "play")
    log[i]["visible_to"] = seats(log)
    return True


def pile_order_seen(log: Log) -> bool:
    log[2]["visible_to"] = [log[3]["player"]]
    return True


def facedown_card_in_public_turn(log: Log) -> bool:
    i = where(log, "turn", lambda e: e["face"] == "down")
    log[i]["card"] = log[i + 1]["card"]
    return True


def facedown_card_swapped(log: Log) -> bool:
    i = where(log, "facedown")
    log[i]["card"] = other_design(log, log[i]["card"])
    return True


def redraw_too_large(log: Log) -> bool:
    team_of = {p["id"]: t["team"] for t in log[0]["teams"] for p in t["players"]}
    plain = {t["team"] for t in log[0]["teams"] if t["protector"]["effect"]["kind"] != "redraw_size"}
    i = where(log, "redraw", lambda e: team_of[e["player"]] in plain)
    if i is None:
        return False
    log[i]["size"] = 4
    log[i - 1]["action"][2] = 4
    log[i - 1]["offered"].append(log[i - 1]["action"])
    return True


def redraw_of_a_card_not_held(log: Log) -> bool:
    i = where(log, "redraw", lambda e: bool(e["discarded"]))
    if i is None:
        return False
    log[i]["discarded"][0] = other_design(log, log[i]["discarded"][0])
    return True


def heal_on_a_clean_defense(log: Log) -> bool:
    i = where(log, "heal", lambda e: e["removed"])
    if i is None:
        return False
    team = log[i]["team"]
    log[i]["defense"] = next(d["slug"] for d in log[0]["teams"][team]["defenses"] if d["slug"] != log[i]["defense"])
    return True


def heal_choice_taken_by_the_engine(log: Log) -> bool:
    i = where(log, "heal", lambda e: e["chosen_by"] == "agent")
    if i is None:
        return False
    log[i]["chosen_by"] = "auto"
    del log[i - 1]  # the decision
    return True


def heal_chosen_by_another_seat(log: Log) -> bool:
    i = where(log, "decision", lambda e: e["stage"] == "heal")
    if i is None:
        return False
    log[i]["player"] = next(p for p in seats(log) if p != log[i]["player"])
    return True


def protector_heal_missing(log: Log) -> bool:
    i = where(log, "heal", lambda e: e["via"] == "protector")
    if i is None:
        return False
    del log[i]
    return True


def boost_reaches_wrong_attacks(log: Log) -> bool:
    i = where(log, "boost")
    if i is None:
        return False
    log[i]["attacks"] = log[i]["attacks"][1:] if log[i]["attacks"] else [99]
    return True


def strength_inflated(log: Log) -> bool:
    i = where(log, "strength")
    e = log[i]
    element = next(iter(e["points"]))
    e["points"][element] += 1
    return True


def pierce_missing(log: Log) -> bool:
    i = where(log, "pierce")
    if i is None:
        return False
    del log[i]
    return True


def cancel_left_wrong(log: Log) -> bool:
    i = where(log, "cancel")
    if i is None:
        return False
    log[i]["left"] += 1
    return True


def destruction_missing(log: Log) -> bool:
    i = where(log, "destroyed")
    if i is None:
        return False
    del log[i]
    return True


def wrong_defense_destroyed(log: Log) -> bool:
    i = where(log, "destroyed")
    if i is None:
        return False
    team = log[i]["team"]
    log[i]["defense"] = next(d["slug"] for d in log[0]["teams"][team]["defenses"] if d["slug"] != log[i]["defense"])
    return True


def wrong_winner(log: Log) -> bool:
    if log[-1]["winner"] is None:
        return False
    log[-1]["winner"] = 1 - log[-1]["winner"]
    return True


def spy_saw_another_card(log: Log) -> bool:
    i = where(log, "spy")
    if i is None:
        return False
    log[i]["card"] = other_design(log, log[i]["card"])
    return True


def spy_skipped(log: Log) -> bool:
    i = where(log, "spy")
    if i is None:
        return False
    del log[i]
    return True


def spy_seen_by_an_opponent_teammate(log: Log) -> bool:
    i = where(log, "spy")
    if i is None:
        return False
    log[i]["visible_to"] = seats(log)
    return True


def spy_given_a_count(log: Log) -> bool:
    team = next((t for t in log[0]["teams"] if t["protector"]["effect"]["kind"] == "reveal_facedown"), None)
    if team is None:
        return False
    team["protector"]["effect"]["count"] = 2
    return True


def teammates_adjacent(log: Log) -> bool:
    if log[0]["mode"] != "teams":
        return False
    players = [p for t in log[0]["teams"] for p in t["players"]]
    a, b = players[1], players[2]  # t0p1 and t1p0: swapping makes both teams' counters mixed parity
    a["counter"], b["counter"] = b["counter"], a["counter"]
    return True


def defense_used_twice(log: Log) -> bool:
    log[0]["teams"][1]["defenses"][0] = copy.deepcopy(log[0]["teams"][0]["defenses"][0])
    return True


def spirits_shared(log: Log) -> bool:
    log[0]["teams"][1]["spirit"] = dict(log[0]["teams"][0]["spirit"])
    return True


def drawn_from_a_bad_pool(log: Log) -> bool:
    """The last protector draw's pool holds the other team's protector, already in the match by then."""
    draws = [d for d in log[0]["drawn"] if d["kind"] == "protector"]
    if not draws:
        return False
    draws[-1]["pool"].append(log[0]["teams"][1 - draws[-1]["team"]]["protector"]["slug"])
    return True


def agent_seed_missing(log: Log) -> bool:
    log[1]["agent_seeds"].popitem()
    return True


def seeds_seen_by_the_seats(log: Log) -> bool:
    """The seeds marked as seen: the match seed would let a seat replay every shuffle (G2)."""
    log[1]["visible_to"] = seats(log)
    return True


def redraw_draws_back_its_discards(log: Log) -> bool:
    """A refill during a redraw shuffles in the redraw's own discards, which it draws back from the top (the
    rule before L8 was amended). The match is cut right after, by the action cap, so that nothing later
    depends on the cards drawn."""
    for i, e in enumerate(log):
        drawn = redraw_draws(log, i) if e["type"] == "redraw" and e["discarded"] and not e["short"] else []
        refills = [j for j in drawn if log[j]["type"] == "shuffle"]
        if not refills:
            continue
        refill, draw = log[refills[0]], log[refills[0] + 1]
        refill["order"] = list(e["discarded"]) + refill["order"]
        draw["cards"] = refill["order"][:len(draw["cards"])]
        draw["draw_pile"] = len(refill["order"]) - len(draw["cards"])
        del log[refills[0] + 2:]
        log[0]["options"]["max_actions"] = sum(x["type"] == "decision" for x in log)
        log.append({"type": "match_end", "winner": None, "reason": "max_actions", "rounds": e["round"],
                    "visible_to": seats(log)})
        return True
    return False


def redraw_counts_its_own_discards(log: Log) -> bool:
    """A redraw short of cards counts what it draws as if its discards were already on the pile."""
    i = where(log, "redraw", lambda e: e["short"] > 0 and bool(e["discarded"]))
    if i is None:
        return False
    e = log[i]
    drawn = min(e["size"], e["draw_pile"] + e["discard_pile"] + len(e["discarded"]))
    e["hand"] += drawn - e["drawn"]
    e["drawn"], e["short"] = drawn, e["size"] - drawn
    return True


def redraw_piles_miscounted(log: Log) -> bool:
    """The discard pile of a redraw counted with one card too many (what it gives is unchanged)."""
    i = where(log, "redraw")
    if i is None:
        return False
    log[i]["discard_pile"] += 1
    return True


def extra_field(log: Log) -> bool:
    log[5]["note"] = "x"
    return True


def discard_missing_a_card(log: Log) -> bool:
    i = where(log, "round_end")
    if i is None:
        return False
    log[i]["cards"] = log[i]["cards"][1:]
    return True


def protector_draw_too_large(log: Log) -> bool:
    i = where(log, "draw", lambda e: e["reason"] == "protector")
    if i is None:
        return False
    log[i]["count"] += 1
    return True


def duel_draw_missing(log: Log) -> bool:
    if log[0]["mode"] != "duel":
        return False
    del log[where(log, "draw", lambda e: e["reason"] == "play")]
    return True


def round_cap_exceeded(log: Log) -> bool:
    if log[-1]["rounds"] < 2:
        return False
    log[0]["options"]["max_rounds"] = log[-1]["rounds"] - 1
    return True


def event_after_the_end(log: Log) -> bool:
    log.append(copy.deepcopy(log[-1]))
    return True


def decision_missing(log: Log) -> bool:
    del log[where(log, "decision")]
    return True


def reveal_differs(log: Log) -> bool:
    i = where(log, "reveal")
    log[i]["card"] = other_design(log, log[i]["card"])
    return True


def allocation_by_the_engine(log: Log) -> bool:
    i = where(log, "allocation", lambda e: e["chosen_by"] == "agent")
    if i is None:
        return False
    log[i]["chosen_by"], log[i]["player"] = "auto", None
    del log[i - 1]
    return True


def allocation_team_order(log: Log) -> bool:
    i = where(log, "allocation", lambda e: e["chosen_by"] == "auto")
    if i is None:
        return False
    log[i]["team"] = 1 - log[i]["team"]
    return True


# Each corruption, and words of the rule the auditor must name for it.
CORRUPTIONS: dict[str, tuple[Callable[[Log], bool], str]] = {f.__name__: (f, words) for f, words in (
    (cap_exceeded, "never more than"), (cap_field, "the cap is the attack cards played"),
    (draw_not_top, "draws the top of the pile"), (deal_not_top, "is dealt the top 7 cards"),
    (refill_not_the_discards, "shuffles exactly the discard pile"), (deck_not_shuffled_deck, "is the deck"),
    (counters_wrong_way, "counter 1 goes to the holder of 2"), (turn_out_of_order, "played by the counter holder"),
    (action_not_offered, "is among the actions offered"), (offered_missing_one, "every legal turn offered"),
    (offered_illegal_extra, "every legal turn offered"), (facedown_seen_by_another, "facedown: visible to"),
    (hand_made_public, "deal: visible to"), (turn_decision_made_public, "decision: visible to"),
    (pile_order_seen, "shuffle: visible to"), (facedown_card_in_public_turn, "shows only its orientation"),
    (facedown_card_swapped, "the card played is the decision's action"),
    (redraw_too_large, "redraw size 4 allowed"), (redraw_of_a_card_not_held, "it discards"),
    (heal_on_a_clean_defense, "removes a marker that lies there"),
    (heal_choice_taken_by_the_engine, "heals alone only without a choice"),
    (heal_chosen_by_another_seat, "player (or the team's first) chooses"),
    (protector_heal_missing, "while a heal is pending"), (boost_reaches_wrong_attacks, "steps 2-3"),
    (strength_inflated, "steps 2-3"), (pierce_missing, "'pierce'"), (cancel_left_wrong, "steps 2-3"),
    (destruction_missing, "every defense holding both elements is destroyed"),
    (wrong_defense_destroyed, "holding both elements (L9)"), (wrong_winner, "the winner destroyed"),
    (spy_saw_another_card, "the Spy saw the card"), (spy_skipped, "the Spy looks right before"),
    (spy_seen_by_an_opponent_teammate, "spy: visible to"), (spy_given_a_count, "the Spy has none"),
    (teammates_adjacent, "teammates never play one after the other"), (defense_used_twice, "no card twice"),
    (spirits_shared, "different spirits"), (drawn_from_a_bad_pool, "no card already in the match"),
    (agent_seed_missing, "an agent seed for every seat"), (extra_field, "exactly its fields"),
    (seeds_seen_by_the_seats, "seeds holds seed, agent_seeds: visible to no seat (G2)"),
    (redraw_draws_back_its_discards, "no refill during it shuffles them in, so it never draws them back"),
    (redraw_counts_its_own_discards, "what the piles held before its discards land"),
    (redraw_piles_miscounted, "the piles before its discards land are"),
    (discard_missing_a_card, "every played card goes to the discard pile"),
    (protector_draw_too_large, "is due"), (duel_draw_missing, "every draw due is done"),
    (round_cap_exceeded, "rounds count up"), (event_after_the_end, "after match_end"),
    (decision_missing, "follows its player's decision"), (reveal_differs, "the card revealed"),
    (allocation_by_the_engine, "allocates alone only without a choice"),
    (allocation_team_order, "counter-1 holder's team first"),
)}


@pytest.mark.parametrize("name", sorted(CORRUPTIONS))
def test_the_auditor_flags_each_corruption(name):
    corrupt, words = CORRUPTIONS[name]
    applied = 0
    for log in logs():
        broken = copy.deepcopy(log)
        if not corrupt(broken):
            continue
        applied += 1
        problems = Audit(broken).problems
        assert any(words in p for p in problems), (name, problems[:5])
        if applied == 3:  # three different logs are enough
            break
    assert applied, f"no log to apply {name} to"
