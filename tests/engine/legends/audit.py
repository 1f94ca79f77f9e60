"""An auditor that replays an Akin Legends match from its event log alone and reports every rule broken.

It reads nothing but the log (schema version 3, docs/legends-engine.md) and uses no engine code:
every rule is re-derived here. What it checks:

- L4-L6 setup: teams, players, spirits, protectors (their spec, uniqueness, no Spy in a duel),
  defenses (two different elements, no card twice), counters (teammates alternate), the deck,
  the setup draws (each drawn card from a pool holding no card already in the match).
- L5/L8 cards: the shuffled deck is the deck; the deal takes 7 cards per seat from the top in
  counter order; every draw takes the top of the pile; a refill happens only when the pile is
  empty and a card is due, and its order is a permutation of the discard pile. Every hand is
  replayed exactly (deal, draws, plays, discards), so every card played or discarded was held.
- L7 turn order, faces (face-down turns hide their card, their `facedown` record names it), the
  duel's draw after each card played; L8 redraws (size, discards, cards drawn).
- L8 as amended: a redraw's discards are held aside until its draws are done and only then reach
  the discard pile, so a refill during the redraw never shuffles them in (nor can the redraw draw
  them back); the redraw's `draw_pile` and `discard_pile` are the piles before its discards land,
  and `drawn` (with `short`) is what those piles could give.
- L9 showdown: reveals, healing (one task per healing card in turn order, the options, who
  chooses, `auto` only without a choice), boosts, strength, pierces and cancellations recomputed
  and compared event by event, allocation (the absolute cap: never more markers than attack
  cards, whatever the protectors; legal placements), destruction.
- L10 who allocates; L11 discards and counter passing; protector draws; L12 the end; L13 the
  Spy's look (timing, card, once a round, and that it is not skipped).
- Decisions: every decision is logged before its consequence, by the right seat, at the right
  stage, with exactly the legal actions (recomputed here) offered and the action taken among them.
- G3: the schema of every event, and each event's `visible_to` (a hand or a face-down card is
  visible to its owner only, a shuffle to nobody, a Spy's look to the Spy team and the owner).
- G2: an event holding a seed (the match seed replays every shuffle, an agent's seed predicts that
  agent) is visible to no seat, whatever its type.

`Audit(events).problems` lists every disagreement; `checks` counts the checks made.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from typing import Any

Event = dict[str, Any]

SCHEMA = 3
FIELDS: dict[str, tuple[str, ...]] = {
    "match_start": ("schema", "mode", "options", "elements", "deck", "deck_size", "teams", "drawn", "agent_names",
                    "visible_to"),
    "seeds": ("seed", "agent_seeds", "visible_to"),
    "shuffle": ("round", "reason", "order", "visible_to"),
    "deal": ("player", "cards", "hand", "draw_pile", "visible_to"),
    "round_start": ("round", "order", "counters", "visible_to"),
    "decision": ("round", "stage", "player", "offered", "action", "visible_to"),
    "turn": ("round", "seq", "pass", "player", "team", "counter", "face", "orientation", "card", "element", "kind",
             "visible_to"),
    "facedown": ("round", "seq", "player", "card", "element", "kind", "visible_to"),
    "redraw": ("round", "seq", "pass", "player", "team", "counter", "discarded", "size", "drawn", "short",
               "draw_pile", "discard_pile", "hand", "visible_to"),
    "draw": ("round", "player", "reason", "source", "count", "cards", "hand", "draw_pile", "visible_to"),
    "spy": ("round", "team", "protector", "player", "seq", "card", "orientation", "element", "kind", "visible_to"),
    "showdown_start": ("round", "visible_to"),
    "reveal": ("round", "seq", "player", "team", "orientation", "card", "element", "kind", "visible_to"),
    "heal": ("round", "team", "via", "source", "player", "seq", "element", "defense", "removed", "chosen_by",
             "visible_to"),
    "boost": ("round", "team", "via", "source", "player", "seq", "element", "amount", "attacks", "visible_to"),
    "strength": ("round", "team", "attack_cards", "points", "visible_to"),
    "pierce": ("round", "team", "source", "element", "player", "seq", "visible_to"),
    "cancel": ("round", "team", "via", "source", "player", "seq", "element", "cancelled", "pierced", "left",
               "visible_to"),
    "allocation": ("round", "team", "player", "points", "attack_cards", "cap", "placements", "placed", "chosen_by",
                   "visible_to"),
    "destroyed": ("round", "team", "defense", "elements", "by", "visible_to"),
    "showdown_end": ("round", "defenses", "visible_to"),
    "round_end": ("round", "cards", "discard_pile", "visible_to"),
    "counters": ("round", "before", "after", "visible_to"),
    "match_end": ("winner", "reason", "rounds", "visible_to"),
}
PUBLIC = {"match_start", "round_start", "turn", "redraw", "showdown_start", "reveal", "heal", "boost", "strength",
          "pierce", "cancel", "allocation", "destroyed", "showdown_end", "round_end", "counters", "match_end"}
OWNER_ONLY = {"deal", "draw", "facedown"}
SEED_FIELDS = ("seed", "agent_seeds")  # G2: what no seat may see, in whatever event it is logged

# The protector spec as the rulings and docs/legends-catalogue.md define it (re-declared, not imported).
KINDS: dict[str, tuple[str, dict[str, tuple[int, int]], bool]] = {
    "reveal_facedown": ("before_second_turns", {}, False),
    "heal_marker": ("round_start", {"count": (1, 2)}, True),
    "boost_first_attack": ("showdown_boosts", {"amount": (1, 2)}, True),
    "cancel_attack": ("showdown_defenses", {"count": (1, 2)}, True),
    "extra_draw": ("round_end", {"count": (1, 2), "max_hand": (7, 10)}, False),
    "redraw_size": ("redraw", {"count": (4, 7)}, False),
    "pierce_defense": ("showdown_defenses", {"count": (1, 2)}, True),
}
TEAMS_ONLY = {"reveal_facedown"}
EFFECT_KINDS = ("defense", "healing", "boost")
MODES = {"teams": (2, 3, 2), "duel": (1, 2, 3)}  # players a team, defenses a team, passes a round
HAND = 7


def _as_tuple(action: Any) -> Any:
    """A logged action (JSON lists) as a hashable tuple."""
    kind = action[0]
    if kind == "redraw":
        return ("redraw", tuple(action[1]), action[2])
    if kind == "allocate":
        return ("allocate", tuple(tuple(p) for p in action[1]))
    return tuple(action)


class Audit:
    """Walks a log, replaying hands, piles, markers and counters; `problems` lists every rule broken."""

    def __init__(self, events: list[Event]) -> None:
        self.events = events
        self.problems: list[str] = []
        self.checks = 0
        self.index = 0
        self.run()

    # ------------------------------------------------------------------ plumbing

    def fail(self, message: str) -> None:
        self.problems.append(f"#{self.index} {message}")

    def check(self, ok: bool, message: str) -> bool:
        self.checks += 1
        if not ok:
            self.fail(message)
        return bool(ok)

    def run(self) -> None:
        events = self.events
        if not events or events[0].get("type") != "match_start":
            self.fail("the log starts with match_start")
            return
        self.ended = False
        self.prev: Event = {}
        for i, e in enumerate(events):
            self.index = i
            kind = e.get("type")
            fields = FIELDS.get(kind)  # type: ignore[arg-type]
            if not self.check(fields is not None, f"known event type {kind!r}"):
                continue
            if not self.check(set(e) - {"type"} == set(fields), f"{kind}: exactly its fields"):
                continue
            self.check(not self.ended, f"{kind} after match_end")
            if i and "round" in e and kind != "round_start":
                self.check(e["round"] == self.round, f"{kind}: round {e['round']} is the current round {self.round}")
            self.secret_seeds(e)
            if i:
                self.visibility(e)
                self.consequence_order(e)
            try:
                getattr(self, f"on_{kind}")(e)
            except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
                self.fail(f"{kind}: unreadable ({type(exc).__name__}: {exc})")
            self.prev = e
        self.index = len(events)
        self.check(events[-1].get("type") == "match_end", "the log ends with match_end")

    def secret_seeds(self, e: Event) -> None:
        """G2: the seeds of the run are in the log (G1, G3) for no seat."""
        held = [name for name in SEED_FIELDS if name in e]
        if held:
            self.check(e["visible_to"] == [], f"{e['type']} holds {', '.join(held)}: visible to no seat (G2), "
                                              f"not {e['visible_to']}")

    def visibility(self, e: Event) -> None:
        """G3: who could see each event when it happened (an event holding a seed: see secret_seeds)."""
        kind = e["type"]
        if any(name in e for name in SEED_FIELDS):
            return
        if kind in PUBLIC:
            expected = self.seats
        elif kind in OWNER_ONLY:
            expected = [e["player"]]
        elif kind == "shuffle":
            expected = []
        elif kind == "decision":
            expected = [e["player"]] if e["stage"] == "play" else self.seats
        else:  # spy: the Spy team and the owner of the card seen
            expected = [p for p in self.seats if self.team_of[p] == e["team"] or p == e["player"]]
        self.check(e["visible_to"] == expected, f"{kind}: visible to {e['visible_to']}, should be {expected}")

    def consequence_order(self, e: Event) -> None:
        """A decision is followed at once by what it decided; a face-down turn by its facedown record."""
        prev = self.prev
        kind = e["type"]
        if prev.get("type") == "decision":
            follows = {"play": ("turn", "redraw"), "heal": ("heal",), "allocate": ("allocation",)}[prev["stage"]]
            self.check(kind in follows, f"a {prev['stage']} decision is followed by {follows}, not {kind}")
        if prev.get("type") == "turn" and prev["face"] == "down":
            self.check(kind == "facedown", "a face-down turn is followed by its facedown record")
        if kind == "facedown":
            self.check(prev.get("type") == "turn" and prev.get("face") == "down" and prev.get("seq") == e["seq"],
                       "a facedown record follows its face-down turn")

    def live(self, team: int) -> list[str]:
        return [s for s, d in self.defenses[team].items() if not d["destroyed"]]

    def no_draw_due(self, where: str) -> None:
        self.check(not self.expected_draws and self.open_draw is None, f"every draw due is done before {where}")

    # ------------------------------------------------------------------ setup (L4-L6)

    def on_match_start(self, e: Event) -> None:
        self.round = 0
        self.check(e["schema"] == SCHEMA, f"schema {SCHEMA}")
        mode = e["mode"]
        self.check(mode in MODES, f"mode {mode!r}")
        self.mode = mode if mode in MODES else "teams"
        per_team, defenses_per_team, self.passes = MODES[self.mode]
        self.options = e["options"]
        self.check(isinstance(self.options.get("max_rounds"), int) and self.options["max_rounds"] >= 1, "max_rounds")
        elements = e["elements"]
        self.check(bool(elements) and len(set(elements)) == len(elements), "elements listed once each (L1)")
        self.elements = list(elements)
        self.read_deck(e)
        teams = e["teams"]
        self.read_teams(teams, elements, per_team, defenses_per_team)
        self.check_counters()
        self.check_draws(e["drawn"], teams)
        self.check(sorted(e["agent_names"]) == sorted(self.seats), "an agent name for every seat (G3)")
        self.check(e["visible_to"] == self.seats, "match_start is public")
        self.start_replay()

    def read_deck(self, e: Event) -> None:
        """The deck (L3): each design listed once, its attacks, its effect and its copies."""
        elements = e["elements"]
        self.design: dict[str, tuple[tuple[str, str], str, str]] = {}
        deck: Counter[str] = Counter()
        for card in e["deck"]:
            slug, attacks, effect = card["slug"], card["attacks"], card["effect"]
            self.check(slug not in self.design, f"design {slug} listed once")
            self.check(len(attacks) == 2 and all(a in elements for a in attacks), f"{slug}: two attack elements (L3)")
            self.check(effect["kind"] in EFFECT_KINDS and effect["element"] in elements, f"{slug}: its effect (L3)")
            self.check(isinstance(card["copies"], int) and 1 <= card["copies"] <= 12, f"{slug}: copies")
            self.design[slug] = (tuple(attacks), effect["kind"], effect["element"])
            deck[slug] += card["copies"]
        self.deck = deck
        self.check(e["deck_size"] == sum(deck.values()), "deck_size counts the copies")

    def read_teams(self, teams: list[dict[str, Any]], elements: list[str], per_team: int,
                   defenses_per_team: int) -> None:
        """Teams (L4, L5): two of them, each with its protector, defenses and players."""
        self.check(len(teams) == 2 and [t["team"] for t in teams] == [0, 1], "two teams, 0 and 1 (L5)")
        self.seats: list[str] = []
        self.team_of: dict[str, int] = {}
        self.counters: dict[str, int] = {}
        self.effects: list[dict[str, Any]] = []
        self.protector: list[str] = []
        self.defenses: list[dict[str, dict[str, Any]]] = []
        used_defenses: set[str] = set()
        for t in teams:
            self.read_team(t, elements, per_team, defenses_per_team, used_defenses)
        self.check(len({t["spirit"]["slug"] for t in teams}) == 2, "the teams protect different spirits (L5)")
        self.check(len(set(self.protector)) == 2, "two teams never share a protector (L4)")

    def read_team(self, t: dict[str, Any], elements: list[str], per_team: int, defenses_per_team: int,
                  used_defenses: set[str]) -> None:
        """One team (L4, L5): its protector (none teams-only in a duel), its defenses and its players."""
        index = t["team"]
        effect = t["protector"]["effect"]
        self.check_effect(effect, t["protector"]["slug"])
        if self.mode == "duel":
            self.check(effect.get("kind") not in TEAMS_ONLY and t["protector"]["duel_legal"],
                       f"team {index}: no teams-only protector in a duel (L4, L13)")
        self.effects.append(effect)
        self.protector.append(t["protector"]["slug"])
        self.check(len(t["defenses"]) == defenses_per_team, f"team {index}: {defenses_per_team} defenses (L5)")
        self.defenses.append(self.read_defenses(t["defenses"], elements, used_defenses))
        self.check(len(t["players"]) == per_team, f"team {index}: {per_team} player(s) (L5)")
        for i, p in enumerate(t["players"]):
            self.check(p["id"] == f"t{index}p{i}", f"player id {p['id']}")
            self.seats.append(p["id"])
            self.team_of[p["id"]] = index
            self.counters[p["id"]] = p["counter"]

    def read_defenses(self, defenses: list[dict[str, Any]], elements: list[str],
                      used_defenses: set[str]) -> dict[str, dict[str, Any]]:
        """A team's defenses (L2, L5): two different elements each, no card twice in a match."""
        team_defenses: dict[str, dict[str, Any]] = {}
        for d in defenses:
            els = d["elements"]
            self.check(len(els) == 2 and els[0] != els[1] and all(x in elements for x in els),
                       f"{d['slug']}: two different elements (L2)")
            self.check(d["slug"] not in used_defenses, f"{d['slug']}: no card twice in a match (L5)")
            used_defenses.add(d["slug"])
            team_defenses[d["slug"]] = {"elements": list(els), "markers": [], "destroyed": False}
        return team_defenses

    def check_counters(self) -> None:
        """L5: counters 1..N, one each; in teams mode teammates hold counters of one parity."""
        n = len(self.seats)
        self.check(sorted(self.counters.values()) == list(range(1, n + 1)), f"counters 1..{n}, one each (L5)")
        if self.mode == "teams":
            for index in (0, 1):
                parities = {c % 2 for p, c in self.counters.items() if self.team_of[p] == index}
                self.check(len(parities) == 1, f"team {index}: teammates never play one after the other (L5)")

    def start_replay(self) -> None:
        """The replay state before the first shuffle: empty hands and piles, nothing due."""
        self.hands: dict[str, list[str]] = {p: [] for p in self.seats}
        self.pile: list[str] | None = None
        self.discard: list[str] = []
        self.dealt: list[str] = []
        self.decisions = 0
        self.expected_draws: list[tuple[str, str, int, str | None]] = []
        self.open_draw: dict[str, Any] | None = None
        self.held: list[str] = []  # a redraw's discards, until its draws are done (L8)
        self.seeded = False
        self.pending: Event | None = None
        self.phase = "setup"
        self.after_showdown_end: int | None = None
        self.order: list[str] = []
        self.turn = 0
        self.plays: dict[int, dict[str, Any]] = {}
        self.spy_used = [False, False]
        self.spied_now = False
        self.heal_queue: list[dict[str, Any]] = []
        self.reveals: list[int] = []
        self.resolved: list[tuple] | None = None
        self.alloc_queue: list[int] = []
        self.fallen: list[tuple] | None = None
        self.action: tuple | None = None

    def check_effect(self, effect: dict[str, Any], slug: str) -> None:
        kind = effect.get("kind")
        spec = KINDS.get(kind)  # type: ignore[arg-type]
        if not self.check(spec is not None, f"{slug}: a known effect kind"):
            return
        when, ints, element = spec
        allowed = {"kind", "when", *ints, *(("element",) if element else ())}
        self.check(set(effect) == allowed, f"{slug}: exactly the parameters of {kind} (L13: the Spy has none)")
        self.check(effect.get("when") == when, f"{slug}: runs at {when}")
        for name, (low, high) in ints.items():
            value = effect.get(name)
            self.check(isinstance(value, int) and low <= value <= high, f"{slug}: {name} within {low}..{high}")
        if element:
            self.check(effect.get("element") == "any" or effect.get("element") in self.elements, f"{slug}: element")

    def check_draws(self, drawn: list[dict[str, Any]], teams: list[dict[str, Any]]) -> None:
        """L6: each setup draw names the team's cards, from a pool without a card already in the match."""
        in_match = {"protector": [t["protector"]["slug"] for t in teams],
                    "defense": [d["slug"] for t in teams for d in t["defenses"]]}
        drawn_cards = {kind: [c for d in drawn if d["kind"] == kind for c in d["cards"]] for kind in in_match}
        used = {kind: set(cards) - set(drawn_cards[kind]) for kind, cards in in_match.items()}  # the given ones
        for d in drawn:
            kind, team = d["kind"], d["team"]
            if not self.check(kind in in_match and team in (0, 1), "a setup draw of a protector or defenses"):
                continue
            own = [teams[team]["protector"]["slug"]] if kind == "protector" else [x["slug"] for x in
                                                                                  teams[team]["defenses"]]
            self.check(d["cards"] == own, f"team {team}'s drawn {kind} are its cards (L6)")
            pool = d["pool"]
            self.check(len(set(pool)) == len(pool) and set(d["cards"]) <= set(pool), f"drawn {kind} from its pool")
            self.check(not set(pool) & used[kind], f"the {kind} pool holds no card already in the match (L6)")
            used[kind].update(d["cards"])

    # ------------------------------------------------------------------ piles and hands (L5, L8)

    def on_seeds(self, e: Event) -> None:
        self.check(self.index == 1 and not self.seeded, "the seeds follow match_start, once (G1)")
        self.seeded = True
        self.check(isinstance(e["seed"], int) and not isinstance(e["seed"], bool), "the match seed (G1)")
        self.check(sorted(e["agent_seeds"]) == sorted(self.seats)
                   and all(isinstance(s, int) and not isinstance(s, bool) for s in e["agent_seeds"].values()),
                   "an agent seed for every seat (G2, G3)")

    def on_shuffle(self, e: Event) -> None:
        order = e["order"]
        if e["reason"] == "start":
            self.check(self.pile is None and self.round == 0 and self.seeded,
                       "the deck is shuffled once, after the seeds, before the deal")
            self.check(Counter(order) == self.deck, "the shuffled deck is the deck (L5)")
        else:
            self.check(e["reason"] == "refill", f"shuffle reason {e['reason']!r}")
            due = self.open_draw is not None or bool(self.expected_draws)
            self.check(due and not self.pile, "a refill only when the draw pile is empty and a card is due (L8)")
            held = Counter(self.held)
            if self.check(not held or Counter(order) != Counter(self.discard) + held,
                          "a redraw draws before its discards land: no refill during it shuffles them in, so it "
                          "never draws them back (L8)"):
                self.check(bool(self.discard) and Counter(order) == Counter(self.discard),
                           "a refill shuffles exactly the discard pile (L8)")
            else:
                self.held = []  # in the pile now, as the log has it: followed from there
            self.discard = []
        self.pile = list(order)

    def on_deal(self, e: Event) -> None:
        expected = sorted(self.seats, key=self.counters.get)
        self.check(self.pile is not None and len(self.dealt) < len(self.seats), "the deal follows the shuffle")
        player = e["player"]
        self.check(player == expected[len(self.dealt)], "the deal goes in counter order (L5)")
        pile = self.pile or []
        self.check(e["cards"] == pile[:HAND], f"{player} is dealt the top {HAND} cards of the pile (L5)")
        self.pile = pile[len(e["cards"]):]
        self.hands[player] = list(e["cards"])
        self.dealt.append(player)
        self.check(e["hand"] == HAND == len(e["cards"]) and e["draw_pile"] == len(self.pile), "deal sizes")

    def on_draw(self, e: Event) -> None:
        player, key = e["player"], (e["player"], e["reason"], e["count"], e["source"])
        if self.open_draw is not None:
            self.check(self.open_draw["key"] == key, "a draw split by a refill goes on with the same request")
        else:
            due = self.expected_draws.pop(0) if self.expected_draws else None
            self.check(due == key, f"draw {key} is due (expected {due})")
            self.open_draw = {"key": key, "got": 0}
        pile = self.pile or []
        cards = e["cards"]
        self.check(cards == pile[:len(cards)], f"{player} draws the top of the pile (L8)")
        self.pile = pile[len(cards):]
        self.hands[player].extend(cards)
        self.open_draw["got"] += len(cards)
        got, count = self.open_draw["got"], e["count"]
        self.check(got <= count, "no more cards than asked")
        self.check(e["hand"] == len(self.hands[player]) and e["draw_pile"] == len(self.pile), "draw sizes")
        if got >= count or (not self.pile and not self.discard):
            self.open_draw = None  # done (or short: both piles are empty)
            if e["reason"] == "redraw":  # L8: only now do the redraw's discards reach the discard pile
                self.discard.extend(self.held)
                self.held = []
        else:
            self.check(not self.pile, "a draw stops early only where the pile runs out (then a refill)")

    def take(self, player: str, card: str, what: str) -> None:
        hand = self.hands[player]
        if self.check(card in hand, f"{player} holds the {card} it {what} (L8)"):
            hand.remove(card)

    # ------------------------------------------------------------------ rounds (L7, L11, L13)

    def on_round_start(self, e: Event) -> None:
        self.check(len(self.dealt) == len(self.seats), "every seat is dealt before the first round")
        self.no_draw_due("a round")
        self.check(self.phase in ("setup", "round_over"), "a round starts after the deal or the last round")
        self.round += 1
        self.check(e["round"] == self.round and self.round <= self.options["max_rounds"], "rounds count up (L12)")
        self.check(e["counters"] == self.counters, f"round {self.round}: counters as handed on (L11)")
        order = sorted(self.counters, key=self.counters.get)
        self.check(e["order"] == order, "turns in counter order (L7)")
        self.order = order
        if self.mode == "teams":
            teams = [self.team_of[p] for p in order]
            self.check(all(teams[i] != teams[(i + 1) % len(teams)] for i in range(len(teams))),
                       "teammates never play one after the other (L7)")
        self.turn = 0
        self.plays = {}
        self.spy_used = [False, False]
        self.spied_now = False
        self.phase = "turns"
        self.heal_queue = [
            {"team": team, "element": effect["element"], "via": "protector", "seq": None, "player": None,
             "source": self.protector[team]}
            for team, effect in enumerate(self.effects) if effect.get("kind") == "heal_marker"
            for _ in range(effect["count"])
        ]

    def current_seat(self) -> str:
        return self.order[self.turn % len(self.order)]

    def decider(self, team: int) -> str:
        return next(p for p in self.order if self.team_of[p] == team)

    def should_spy(self, player: str) -> bool:
        team = self.team_of[player]
        return (self.mode == "teams" and self.effects[team].get("kind") == "reveal_facedown"
                and self.turn >= len(self.order) and not self.spy_used[team]
                and any(not p["face_up"] and p["team"] != team for p in self.plays.values()))

    def play_options(self, player: str) -> set[tuple]:
        """L8: every distinct card as each of its attacks or its effect, and every redraw."""
        hand = self.hands[player]
        out: set[tuple] = set()
        for slug in set(hand):
            attacks, _, _ = self.design[slug]
            out.update(("attack", slug, a) for a in attacks)
            out.add(("effect", slug))
        effect = self.effects[self.team_of[player]]
        largest = effect["count"] if effect.get("kind") == "redraw_size" else 3
        for size in range(3, largest + 1):
            for discards in combinations(sorted(hand), min(size, len(hand))):
                out.add(("redraw", discards, size))
        return out

    def heal_options(self, team: int, element: str) -> list[tuple[str, str]]:
        return [(slug, m) for slug in self.live(team) for m in self.defenses[team][slug]["markers"]
                if element in ("any", m)]

    def on_decision(self, e: Event) -> None:
        self.decisions += 1
        stage, player = e["stage"], e["player"]
        offered = [_as_tuple(a) for a in e["offered"]]
        action = _as_tuple(e["action"])
        self.check(len(set(offered)) == len(offered), "each action offered once")
        self.check(action in offered, f"the action taken {action} is among the actions offered")
        self.pending = e
        if self.heal_queue:
            task = self.heal_queue[0]
            options = self.heal_options(task["team"], task["element"])
            self.check(stage == "heal", f"a {stage} decision while a heal is pending")
            self.check(player == self.healer(task), "the healing card's player (or the team's first) chooses (L9)")
            self.check(len(options) > 1, "a healing decision only among several markers")
            self.check(set(offered) == {("heal", s, m) for s, m in options}, "the heal options offered (L9)")
        elif self.phase in ("reveal", "resolve", "allocate"):
            self.start_allocation()
            team = self.alloc_queue[0] if self.alloc_queue else None
            self.check(stage == "allocate" and team is not None, f"a {stage} decision at allocation")
            if team is None:
                return
            allocations = self.allocation_options(team)
            self.check(player == self.decider(team), "the team's first player allocates (L10)")
            self.check(len(allocations) > 1, "an allocation decision only with a choice")
            self.check({frozenset(a[1]) for a in offered if a[0] == "allocate"} == allocations
                       and all(a[0] == "allocate" for a in offered), "every legal allocation offered (L9, L10)")
        else:
            self.check(stage == "play" and self.phase == "turns", f"a {stage} decision during {self.phase}")
            self.no_draw_due("a turn")
            self.check(player == self.current_seat(), f"{player} decides the turn of {self.current_seat()} (L7)")
            self.check(self.spied_now or not self.should_spy(player),
                       "the Spy looks right before its team's first face-down turn after an opponent's (L13)")
            self.check(set(offered) == self.play_options(player), "every legal turn offered, nothing else (L8)")

    def on_turn(self, e: Event) -> None:
        pending, self.pending = self.pending, None
        n = len(self.order)
        seq, player = e["seq"], e["player"]
        self.check(self.phase == "turns" and seq == self.turn < n * self.passes, f"turn #{seq} in sequence (L7)")
        self.check(player == self.current_seat(), f"#{seq} played by the counter holder (L7)")
        self.check(e["team"] == self.team_of[player] and e["counter"] == self.counters[player], "turn team, counter")
        self.check(e["pass"] == seq // n + 1, "turn pass")
        face_up = seq < n
        self.check(e["face"] == ("up" if face_up else "down"), "the first pass face up, then face down (L7)")
        self.check(e["orientation"] in ("attack", "effect"), "an attack or an effect (L8)")
        self.check(pending is not None and pending["stage"] == "play" and pending["player"] == player,
                   "a turn follows its player's decision")
        self.action = _as_tuple(pending["action"]) if pending is not None else None
        self.plays[seq] = {"player": player, "team": e["team"], "face_up": face_up, "orientation": e["orientation"],
                           "card": None, "element": None, "kind": None}
        if face_up:
            self.place_card(seq, e)
        else:
            self.check(e["card"] is None and e["element"] is None and e["kind"] is None,
                       "a face-down card shows only its orientation (L7)")
        self.turn += 1
        self.spied_now = False
        if self.mode == "duel":
            self.expected_draws.append((player, "play", 1, None))  # L8: the duel draws after each card

    def on_facedown(self, e: Event) -> None:
        play = self.plays.get(e["seq"])
        if self.check(play is not None and play["player"] == e["player"] and not play["face_up"],
                      "a facedown record of a face-down turn"):
            self.place_card(e["seq"], e)

    def place_card(self, seq: int, e: Event) -> None:
        """The card of a turn: held, used as the action said, with its element and kind."""
        play = self.plays[seq]
        card, element, kind = e["card"], e["element"], e["kind"]
        if not self.check(card in self.design, f"#{seq}: a card of the deck"):
            return
        attacks, effect_kind, effect_element = self.design[card]
        if play["orientation"] == "attack":
            self.check(element in attacks and kind == "attack", f"#{seq}: attacks with one of its elements (L8)")
            expected: tuple[str, ...] = ("attack", card, element)
        else:
            self.check(element == effect_element and kind == effect_kind, f"#{seq}: its special effect (L3, L8)")
            expected = ("effect", card)
        self.check(self.action == expected, f"#{seq}: the card played is the decision's action")
        self.take(play["player"], card, "plays")
        play.update(card=card, element=element, kind=kind)

    def on_redraw(self, e: Event) -> None:
        pending, self.pending = self.pending, None
        n = len(self.order)
        seq, player = e["seq"], e["player"]
        self.check(self.phase == "turns" and seq == self.turn < n * self.passes, f"redraw #{seq} in sequence (L7)")
        self.check(player == self.current_seat(), f"#{seq} redrawn by the counter holder (L7)")
        self.check(e["team"] == self.team_of[player] and e["counter"] == self.counters[player]
                   and e["pass"] == seq // n + 1, "redraw team, counter, pass")
        self.check(pending is not None and pending["player"] == player
                   and _as_tuple(pending["action"]) == ("redraw", tuple(e["discarded"]), e["size"]),
                   "a redraw follows its player's decision")
        effect = self.effects[self.team_of[player]]
        largest = effect["count"] if effect.get("kind") == "redraw_size" else 3
        size = e["size"]
        self.check(3 <= size <= largest, f"redraw size {size} allowed (L8)")
        before = len(self.hands[player])
        self.check(len(e["discarded"]) == min(size, before), "discards the size, or the whole hand if fewer (L8)")
        for card in e["discarded"]:
            self.take(player, card, "discards")
        self.held = list(e["discarded"])  # face up, but on the discard pile only once the draws are done (L8)
        pile, discard = len(self.pile or []), len(self.discard)
        self.check((e["draw_pile"], e["discard_pile"]) == (pile, discard),
                   f"redraw #{seq}: the piles before its discards land are {pile} and {discard} cards (L8)")
        drawn = min(size, pile + discard)
        self.check((e["drawn"], e["short"]) == (drawn, size - drawn),
                   f"redraw #{seq} draws {drawn}, {size - drawn} short: what the piles held before its discards "
                   f"land (L8)")
        self.check(e["hand"] == len(self.hands[player]) + e["drawn"], "redraw sizes")
        self.expected_draws.append((player, "redraw", size, None))
        self.turn += 1
        self.spied_now = False

    def on_spy(self, e: Event) -> None:
        team = e["team"]
        self.no_draw_due("a Spy's look")
        self.check(self.mode == "teams" and self.effects[team].get("kind") == "reveal_facedown"
                   and e["protector"] == self.protector[team], "a Spy protector looks, in teams mode (L13)")
        self.check(self.phase == "turns" and self.turn >= len(self.order), "during the face-down turns (L13)")
        self.check(self.team_of[self.current_seat()] == team, "right before a turn of the Spy's team (L13)")
        self.check(not self.spy_used[team], "once per round (L13)")
        hidden = [s for s, p in self.plays.items() if not p["face_up"] and p["team"] != team]
        self.check(bool(hidden) and e["seq"] == max(hidden), "the Spy sees the latest opposing face-down card (L13)")
        play = self.plays.get(e["seq"], {})
        self.check((e["player"], e["card"], e["orientation"], e["element"], e["kind"]) == (
            play.get("player"), play.get("card"), play.get("orientation"), play.get("element"), play.get("kind")),
            "the Spy saw the card that was played")
        self.spy_used[team] = True
        self.spied_now = True

    # ------------------------------------------------------------------ showdown (L9)

    def on_showdown_start(self, e: Event) -> None:
        self.no_draw_due("the showdown")
        self.check(self.phase == "turns" and self.turn == len(self.order) * self.passes,
                   "every player took every turn (L7)")
        self.phase = "reveal"
        self.reveals = [s for s, p in sorted(self.plays.items()) if not p["face_up"]]
        self.heal_queue = [
            {"team": p["team"], "element": p["element"], "via": "card", "seq": s, "player": p["player"],
             "source": p["card"]}
            for s, p in sorted(self.plays.items()) if p["orientation"] == "effect" and p["kind"] == "healing"
        ]
        self.resolved = None
        self.alloc_queue = []
        self.fallen = None

    def on_reveal(self, e: Event) -> None:
        self.check(self.phase == "reveal" and bool(self.reveals) and e["seq"] == self.reveals[0],
                   "face-down cards revealed in turn order at the showdown (L9)")
        if self.reveals:
            self.reveals.pop(0)
        play = self.plays.get(e["seq"], {})
        self.check((e["player"], e["team"], e["orientation"], e["card"], e["element"], e["kind"]) == (
            play.get("player"), play.get("team"), play.get("orientation"), play.get("card"), play.get("element"),
            play.get("kind")), "the card revealed is the card played face down")

    def healer(self, task: dict[str, Any]) -> str:
        return task["player"] if task["via"] == "card" else self.decider(task["team"])

    def on_heal(self, e: Event) -> None:
        pending, self.pending = self.pending, None
        if self.phase == "reveal":
            self.check(not self.reveals, "every card revealed before the heals (L9)")
        if not self.check(bool(self.heal_queue), "a heal is due (a healing card, or heal_marker at round start)"):
            return
        self.check(self.phase in ("turns", "reveal") and (self.phase == "reveal" or self.turn == 0),
                   "heals at round start (protector) or at showdown step 1 (L9)")
        task = self.heal_queue.pop(0)
        team = task["team"]
        options = self.heal_options(team, task["element"])
        self.check((e["team"], e["via"], e["source"], e["seq"]) == (team, task["via"], task["source"], task["seq"]),
                   "heals in turn order, each naming its source")
        choice = (e["defense"], e["element"])
        self.check_heal_chooser(e, pending, task, options, choice)
        if options:
            self.check(e["removed"] and choice in options, "the heal removes a marker that lies there (L9)")
            if choice in options:
                self.defenses[team][choice[0]]["markers"].remove(choice[1])
        else:
            self.check(not e["removed"] and e["defense"] is None and e["element"] == task["element"],
                       "a heal with no marker to remove does nothing")

    def check_heal_chooser(self, e: Event, pending: Event | None, task: dict[str, Any],
                           options: list[tuple[str, str]], choice: tuple[str, str]) -> None:
        """L9: an agent's heal follows its decision by the healing card's player; the engine's has no choice."""
        if e["chosen_by"] == "agent":
            self.check(len(options) > 1 and pending is not None and pending["stage"] == "heal"
                       and _as_tuple(pending["action"]) == ("heal", *choice), "a chosen heal follows its decision")
            self.check(e["player"] == self.healer(task), "the healing card's player chooses (L9)")
        else:
            self.check(e["chosen_by"] == "auto" and len(options) <= 1, "the engine heals alone only without a choice")
            self.check(e["player"] == (task["player"] if task["via"] == "card" else None), "heal player")

    def resolve_points(self) -> None:
        """L9 steps 2-3 recomputed from the revealed cards: the events expected, and the points left."""
        if self.resolved is not None:
            return
        self.check(self.phase == "reveal" and not self.reveals and not self.heal_queue,
                   "boosts, defenses and allocation after the reveals and heals (L9)")
        self.phase = "resolve"
        plays = sorted(self.plays.items())
        expected: list[tuple] = []
        strength = {s: 1 for s, p in plays if p["orientation"] == "attack"}
        self.expect_card_boosts(plays, strength, expected)
        self.expect_protector_boosts(plays, strength, expected)
        totals = self.expect_strengths(plays, strength, expected)
        self.expect_card_cancels(plays, totals, expected)
        self.expect_protector_cancels(totals, expected)
        self.resolved = expected
        self.remaining = totals
        self.attack_cards = [self.count_attacks(plays, t) for t in (0, 1)]

    @staticmethod
    def expect_card_boosts(plays: list[tuple[int, dict[str, Any]]], strength: dict[int, int],
                           expected: list[tuple]) -> None:
        """L9 step 2: a boost card adds 1 to each of its team's attacks of its element."""
        for s, p in plays:
            if p["orientation"] == "effect" and p["kind"] == "boost":
                hits = [a for a, q in plays if q["orientation"] == "attack" and q["team"] == p["team"]
                        and q["element"] == p["element"]]
                for a in hits:
                    strength[a] += 1
                expected.append(("boost", p["team"], "card", p["card"], p["player"], s, p["element"], 1, hits))

    def expect_protector_boosts(self, plays: list[tuple[int, dict[str, Any]]], strength: dict[int, int],
                                expected: list[tuple]) -> None:
        """L9 step 2: boost_first_attack adds its amount to its team's first attack of its element."""
        for team, effect in enumerate(self.effects):
            if effect.get("kind") != "boost_first_attack":
                continue
            first = next((a for a, q in plays if q["orientation"] == "attack" and q["team"] == team
                          and effect["element"] in ("any", q["element"])), None)
            if first is not None:
                strength[first] += effect["amount"]
            element = self.plays[first]["element"] if first is not None else effect["element"]
            expected.append(("boost", team, "protector", self.protector[team], None, None, element, effect["amount"],
                             [] if first is None else [first]))

    def expect_strengths(self, plays: list[tuple[int, dict[str, Any]]], strength: dict[int, int],
                         expected: list[tuple]) -> list[dict[str, int]]:
        """L9 step 2: each team's points by element, the sum of its attacks' strengths."""
        totals = []
        for team in (0, 1):
            points = dict.fromkeys(self.elements, 0)
            for s, p in plays:
                if p["orientation"] == "attack" and p["team"] == team:
                    points[p["element"]] += strength[s]
            cards = self.count_attacks(plays, team)
            expected.append(("strength", team, cards, points))
            totals.append(dict(points))
        return totals

    def expect_card_cancels(self, plays: list[tuple[int, dict[str, Any]]], totals: list[dict[str, int]],
                            expected: list[tuple]) -> None:
        """L9 step 3: a defense card cancels a point of its element, unless pierce_defense pierces it."""
        pierce = [e["count"] if e.get("kind") == "pierce_defense" else 0 for e in self.effects]
        for s, p in plays:
            if p["orientation"] != "effect" or p["kind"] != "defense":
                continue
            attacker, element = 1 - p["team"], p["element"]
            target = totals[attacker]
            pierced = (target[element] > 0 and pierce[attacker] > 0
                       and self.effects[attacker]["element"] in ("any", element))
            if pierced:
                pierce[attacker] -= 1
                expected.append(("pierce", attacker, self.protector[attacker], element, p["player"], s))
            cancelled = 1 if target[element] > 0 and not pierced else 0
            target[element] -= cancelled
            expected.append(("cancel", p["team"], "card", p["card"], p["player"], s, element, cancelled, pierced,
                             target[element]))

    def expect_protector_cancels(self, totals: list[dict[str, int]], expected: list[tuple]) -> None:
        """L9 step 3: cancel_attack cancels its count of opposing points (of its element, or the largest)."""
        for team, effect in enumerate(self.effects):
            if effect.get("kind") != "cancel_attack":
                continue
            target = totals[1 - team]
            for _ in range(effect["count"]):
                element = effect["element"]
                if element == "any":
                    element = max(self.elements, key=lambda x: target[x])
                cancelled = 1 if target[element] > 0 else 0
                target[element] -= cancelled
                expected.append(("cancel", team, "protector", self.protector[team], None, None, element, cancelled,
                                 False, target[element]))

    @staticmethod
    def count_attacks(plays: list[tuple[int, dict[str, Any]]], team: int) -> int:
        """The attack cards a team played this round."""
        return sum(1 for _, p in plays if p["orientation"] == "attack" and p["team"] == team)

    def resolved_event(self, e: Event, record: tuple) -> None:
        self.resolve_points()
        expected = self.resolved.pop(0) if self.resolved else None
        self.check(self.phase == "resolve" and record == expected,
                   f"round {self.round}: {record} should be {expected} (L9 steps 2-3)")

    def on_boost(self, e: Event) -> None:
        self.resolved_event(e, ("boost", e["team"], e["via"], e["source"], e["player"], e["seq"], e["element"],
                                e["amount"], e["attacks"]))

    def on_strength(self, e: Event) -> None:
        self.resolved_event(e, ("strength", e["team"], e["attack_cards"], e["points"]))

    def on_pierce(self, e: Event) -> None:
        self.resolved_event(e, ("pierce", e["team"], e["source"], e["element"], e["player"], e["seq"]))

    def on_cancel(self, e: Event) -> None:
        self.resolved_event(e, ("cancel", e["team"], e["via"], e["source"], e["player"], e["seq"], e["element"],
                                e["cancelled"], e["pierced"], e["left"]))

    def allocation_options(self, team: int) -> set[frozenset]:
        """L9 step 4: every set of markers, at most one per open (defense, element), at most the points
        of each element, at most as many as the team's attack cards (absolute)."""
        points = self.remaining[team]
        slots = [(slug, x) for slug in self.live(1 - team) for x in self.defenses[1 - team][slug]["elements"]
                 if x not in self.defenses[1 - team][slug]["markers"] and points.get(x, 0) > 0]
        out = set()
        for k in range(min(len(slots), self.attack_cards[team]) + 1):
            for chosen in combinations(slots, k):
                used = Counter(x for _, x in chosen)
                if all(n <= points[x] for x, n in used.items()):
                    out.add(frozenset(chosen))
        return out

    def start_allocation(self) -> None:
        if self.phase == "resolve" or self.phase == "reveal":
            self.resolve_points()
            self.check(not self.resolved, f"round {self.round}: missing L9 events {self.resolved}")
            self.phase = "allocate"
            first = self.team_of[self.order[0]]
            self.alloc_queue = [first, 1 - first]

    def on_allocation(self, e: Event) -> None:
        pending, self.pending = self.pending, None
        self.start_allocation()
        self.check(self.phase == "allocate" and bool(self.alloc_queue) and e["team"] == self.alloc_queue[0],
                   "each team allocates once, the counter-1 holder's team first (L9)")
        if not self.alloc_queue:
            return
        team = self.alloc_queue.pop(0)
        options = self.allocation_options(team)
        placements = [tuple(p) for p in e["placements"]]
        cards = self.attack_cards[team]
        self.check({k: v for k, v in e["points"].items() if v} == {k: v for k, v in self.remaining[team].items() if v},
                   f"round {self.round}: allocation points are the points left (L9)")
        self.check(e["attack_cards"] == cards and e["cap"] == cards, "the cap is the attack cards played (L9)")
        self.check(e["placed"] == len(placements) <= cards,
                   f"round {self.round}: {len(placements)} markers, never more than {cards} attack cards (L9)")
        self.check(frozenset(placements) in options and len(set(placements)) == len(placements),
                   f"round {self.round}: a legal allocation {placements} (L9 step 4)")
        self.check_allocation_chooser(e, pending, team, options, placements)
        self.place_markers(team, placements)

    def check_allocation_chooser(self, e: Event, pending: Event | None, team: int, options: set[frozenset],
                                 placements: list[tuple]) -> None:
        """L10: an agent's allocation follows its decision by the team's first player; the engine's has no choice."""
        if e["chosen_by"] == "agent":
            self.check(len(options) > 1 and pending is not None and pending["stage"] == "allocate"
                       and _as_tuple(pending["action"]) == ("allocate", tuple(placements)),
                       "a chosen allocation follows its decision (L10)")
            self.check(e["player"] == self.decider(team), "the team's first player allocates (L10)")
        else:
            self.check(e["chosen_by"] == "auto" and len(options) == 1 and e["player"] is None,
                       "the engine allocates alone only without a choice")

    def place_markers(self, team: int, placements: list[tuple]) -> None:
        """The allocated markers land on the opposing defenses (once per element)."""
        for slug, element in placements:
            d = self.defenses[1 - team].get(slug)
            if d is not None and element not in d["markers"]:
                d["markers"].append(element)

    def expected_fallen(self) -> None:
        if self.fallen is None:
            self.check(self.phase == "allocate" and not self.alloc_queue, "destruction after both allocations (L9)")
            self.phase = "destroy"
            self.fallen = [(t, s) for t in (0, 1) for s in self.live(t)
                           if all(x in self.defenses[t][s]["markers"] for x in self.defenses[t][s]["elements"])]

    def on_destroyed(self, e: Event) -> None:
        self.expected_fallen()
        record = (e["team"], e["defense"])
        self.check(bool(self.fallen) and record == self.fallen[0], f"{record} destroyed, holding both elements (L9)")
        if self.fallen and record == self.fallen[0]:
            self.fallen.pop(0)
            d = self.defenses[e["team"]][e["defense"]]
            d["destroyed"] = True
            self.check(e["elements"] == d["elements"] and e["by"] == 1 - e["team"], "destroyed fields")

    def on_showdown_end(self, e: Event) -> None:
        self.expected_fallen()
        self.check(not self.fallen, f"every defense holding both elements is destroyed (L9): {self.fallen}")
        left = [len(self.live(0)), len(self.live(1))]
        self.check(e["defenses"] == left, "defenses left")
        self.phase = "showdown_over"
        self.after_showdown_end = self.index

    def on_round_end(self, e: Event) -> None:
        left = [len(self.live(0)), len(self.live(1))]
        self.check(self.phase == "showdown_over" and min(left) > 0, "a round ends after a showdown with no winner")
        played = [p["card"] for _, p in sorted(self.plays.items())]
        self.check(e["cards"] == played, "every played card goes to the discard pile (L11)")
        self.discard.extend(played)
        self.check(e["discard_pile"] == len(self.discard), "discard pile size")
        self.phase = "round_end"

    def on_counters(self, e: Event) -> None:
        self.check(self.phase == "round_end", "counters are handed on at the end of a round")
        n = len(self.counters)
        self.check(e["before"] == self.counters, "counters before")
        expected = {p: (c - 1 if c > 1 else n) for p, c in self.counters.items()}
        self.check(e["after"] == expected, "counter 1 goes to the holder of 2, ..., N to the holder of 1 (L11)")
        self.counters = dict(e["after"])
        for team, effect in enumerate(self.effects):
            if effect.get("kind") != "extra_draw":
                continue
            for p in sorted((p for p in self.seats if self.team_of[p] == team), key=self.counters.get):
                room = effect["max_hand"] - len(self.hands[p])
                self.expected_draws.append((p, "protector", min(effect["count"], room) if room > 0 else 0,
                                            self.protector[team]))
        self.phase = "round_over"

    def on_match_end(self, e: Event) -> None:
        self.no_draw_due("the end")
        self.check(self.pending is None, "the match ends after the decision's consequence")
        self.ended = True
        left = [len(self.live(0)), len(self.live(1))]
        reason = e["reason"]
        if reason in ("defenses_destroyed", "mutual_destruction"):
            self.check(self.after_showdown_end == self.index - 1, "a destruction ends the match at once (L12)")
        if reason == "mutual_destruction":
            self.check(left == [0, 0] and e["winner"] is None, "both last defenses falling together: a draw (L12)")
        elif reason == "defenses_destroyed":
            self.check(e["winner"] in (0, 1) and left[1 - e["winner"]] == 0 and left[e["winner"]] > 0,
                       "the winner destroyed every opposing defense (L12)")
        elif reason == "max_rounds":
            self.check(e["winner"] is None and min(left) > 0 and self.round == self.options["max_rounds"]
                       and self.phase == "round_over", "the round cap ends in a draw (L12)")
        else:
            self.check(reason == "max_actions" and e["winner"] is None
                       and self.decisions == self.options.get("max_actions"), f"{reason} ends in a draw")
        self.check(e["rounds"] == self.round, "rounds played")
