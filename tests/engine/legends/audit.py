"""An auditor that replays the rules of a showdown (L9), the rounds (L7, L8, L11) and the end (L12)
from an event log alone, and reports every disagreement."""

from __future__ import annotations

from typing import Any

Event = dict[str, Any]


class Audit:
    """Walks a log, tracking defenses, markers, counters and hand sizes; `problems` lists mistakes."""

    def __init__(self, events: list[Event]) -> None:
        self.problems: list[str] = []
        self.events = events
        self.run()

    def fail(self, message: str) -> None:
        self.problems.append(message)

    def check(self, ok: bool, message: str) -> None:
        if not ok:
            self.fail(message)

    # --------------------------------------------------------------------------------------

    def run(self) -> None:
        events = self.events
        start = events[0]
        self.check(start["type"] == "match_start", "the log starts with match_start")
        self.mode = start["mode"]
        self.passes = 2 if self.mode == "teams" else 3
        self.effects = [t["protector"]["effect"] for t in start["teams"]]
        self.protector = [t["protector"]["slug"] for t in start["teams"]]
        self.defenses: list[dict[str, dict[str, Any]]] = [
            {d["slug"]: {"elements": d["elements"], "markers": [], "destroyed": False} for d in t["defenses"]}
            for t in start["teams"]
        ]
        self.team_of = {p["id"]: t["team"] for t in start["teams"] for p in t["players"]}
        self.counters = {p["id"]: p["counter"] for t in start["teams"] for p in t["players"]}
        self.hands: dict[str, int] = {}
        self.round = 0
        i = 1
        while i < len(events):
            e = events[i]
            kind = e["type"]
            handler = getattr(self, f"on_{kind}", None)
            if handler is None:
                self.fail(f"unexpected event {kind}")
            else:
                handler(e)
            i += 1
        self.check(events[-1]["type"] == "match_end", "the log ends with match_end")

    def live(self, team: int) -> list[str]:
        return [s for s, d in self.defenses[team].items() if not d["destroyed"]]

    def on_deal(self, e: Event) -> None:
        self.hands = dict(e["hands"])
        self.check(all(n == 7 for n in self.hands.values()), "7 cards a hand")

    def on_round_start(self, e: Event) -> None:
        self.round += 1
        self.check(e["round"] == self.round, "rounds count up by one")
        self.check(e["counters"] == self.counters, f"round {self.round}: counters as handed on")
        self.check(e["order"] == sorted(self.counters, key=self.counters.get), "turns in counter order")
        self.order = e["order"]
        self.plays: dict[int, dict[str, Any]] = {}
        self.turns: list[tuple[int, str]] = []
        self.spied: dict[int, int] = {}
        self.stage = "turns"
        self.heals_at_start = 0

    def expected_turn(self, seq: int, player: str) -> None:
        n = len(self.order)
        self.check(seq == len(self.turns), f"round {self.round}: turn #{seq} in sequence")
        self.check(self.order[seq % n] == player, f"round {self.round}: #{seq} played by its counter holder")
        self.turns.append((seq, player))

    def on_turn(self, e: Event) -> None:
        self.expected_turn(e["seq"], e["player"])
        face_up = e["seq"] < len(self.order)
        self.check(e["face"] == ("up" if face_up else "down"), f"#{e['seq']}: first pass up, then down (L7)")
        if not face_up:
            self.check(e["card"] is None and e["element"] is None and e["kind"] is None, "face-down card hidden")
        self.plays[e["seq"]] = {"player": e["player"], "team": e["team"], "orientation": e["orientation"],
                                "card": e["card"], "element": e["element"], "kind": e["kind"], "face_up": face_up}
        self.hands[e["player"]] -= 1
        self.check(self.hands[e["player"]] >= 0, "a card played from a hand")

    def on_redraw(self, e: Event) -> None:
        self.expected_turn(e["seq"], e["player"])
        before = self.hands[e["player"]]
        size = e["size"]
        limit = 3
        effect = self.effects[self.team_of[e["player"]]]
        if effect["kind"] == "redraw_size":
            limit = effect["count"]
        self.check(3 <= size <= limit, f"redraw size {size} allowed (L8)")
        self.check(len(e["discarded"]) == min(size, before), "discards the size, or the whole hand if fewer")
        self.hands[e["player"]] = before - len(e["discarded"]) + e["drawn"]
        self.check(self.hands[e["player"]] == e["hand"], "hand size after a redraw")

    def on_draw(self, e: Event) -> None:
        if e["reason"] == "play":
            self.check(self.mode == "duel" and e["count"] == 1, "only duel players draw after playing (L8)")
        else:
            effect = self.effects[self.team_of[e["player"]]]
            self.check(effect["kind"] == "extra_draw", "protector draws come from an extra_draw protector")
            self.check(e["count"] <= effect["count"], "extra draw count")
            self.check(e["hand"] <= max(effect["max_hand"], self.hands[e["player"]]), "extra draw max hand")
        self.hands[e["player"]] += e["drawn"]
        self.check(e["drawn"] <= e["count"] and self.hands[e["player"]] == e["hand"], "hand size after a draw")

    def on_refill(self, e: Event) -> None:
        self.check(e["cards"] == e["draw_pile"], "a refill moves the whole discard pile")

    def on_spy(self, e: Event) -> None:
        team = e["team"]
        self.check(self.effects[team]["kind"] == "reveal_facedown" and self.mode == "teams", "a Spy looks (L13)")
        self.check(self.plays.get(e["seq"], {}).get("face_up") is False, "the Spy sees a face-down card")
        self.check(self.plays[e["seq"]]["team"] != team, "an opponent's card")
        self.check(len(self.turns) >= len(self.order), "during the face-down turns")
        next_player = self.order[len(self.turns) % len(self.order)]
        self.check(self.team_of[next_player] == team, "right before a Spy team turn")
        self.check(team not in self.spied.values(), "once per round")
        self.spied[e["seq"]] = team
        self.spy_cards = getattr(self, "spy_cards", {})
        self.spy_cards[(self.round, e["seq"])] = (e["card"], e["element"])

    def on_showdown_start(self, e: Event) -> None:
        self.check(len(self.turns) == len(self.order) * self.passes, "every player took every turn (L7)")
        self.stage = "showdown"
        self.reveals: set[int] = set()
        self.heal_events: list[Event] = []
        self.boost_events: list[Event] = []
        self.strength_events: list[Event] = []
        self.cancel_events: list[Event] = []
        self.allocations: list[Event] = []

    def on_reveal(self, e: Event) -> None:
        play = self.plays[e["seq"]]
        self.check(not play["face_up"] and play["orientation"] == e["orientation"], "reveal of a face-down card")
        play.update(card=e["card"], element=e["element"], kind=e["kind"])
        if (self.round, e["seq"]) in getattr(self, "spy_cards", {}):
            self.check(self.spy_cards[(self.round, e["seq"])] == (e["card"], e["element"]), "the Spy saw the truth")
        self.reveals.add(e["seq"])

    def on_heal(self, e: Event) -> None:
        if e["via"] == "protector":
            self.check(self.stage == "turns" and not self.turns, "protector heals at round start")
            effect = self.effects[e["team"]]
            self.check(effect["kind"] == "heal_marker", "heal_marker protector")
            self.heals_at_start += 1
            self.check(self.heals_at_start <= effect["count"], "heal_marker count")
            self.remove_marker(e)
            return
        self.heal_events.append(e)

    def remove_marker(self, e: Event) -> None:
        d = self.defenses[e["team"]].get(e["defense"])
        ok = d is not None and not d["destroyed"] and e["element"] in d["markers"]
        self.check(ok, f"round {self.round}: heal removes an existing {e['element']} marker from {e['defense']}")
        if ok:
            d["markers"].remove(e["element"])

    def on_boost(self, e: Event) -> None:
        self.boost_events.append(e)

    def on_strength(self, e: Event) -> None:
        self.strength_events.append(e)
        if len(self.strength_events) == 2:
            self.resolve_until_defenses()

    def on_cancel(self, e: Event) -> None:
        self.cancel_events.append(e)

    def resolve_until_defenses(self) -> None:
        """L9 steps 1-2 recomputed from the revealed plays; compared with the logged heals, boosts, strength."""
        plays = sorted(self.plays.items())
        self.check(all(p["card"] is not None for _, p in plays), "every card revealed at the showdown")
        threats = [set(), set()]
        for _, p in plays:
            if p["orientation"] == "attack":
                threats[1 - p["team"]].add(p["element"])
        heals = [(s, p) for s, p in plays if p["orientation"] == "effect" and p["kind"] == "healing"]
        self.check(len(heals) == len(self.heal_events), "one heal event per healing card")
        for (seq, p), e in zip(heals, self.heal_events, strict=False):
            self.check(e["seq"] == seq and e["element"] == p["element"], "heal events in turn order")
            holders = [s for s in self.live(p["team"]) if p["element"] in self.defenses[p["team"]][s]["markers"]]
            self.check(e["removed"] == bool(holders), f"round {self.round}: heal removes iff a marker lies there")
            if holders:
                threatened = [s for s in holders if any(
                    x not in self.defenses[p["team"]][s]["markers"] and x in threats[p["team"]]
                    for x in self.defenses[p["team"]][s]["elements"])]
                self.check(e["defense"] == (threatened or holders)[0], "heal target: threatened first, then order")
                self.remove_marker(e)
        # Step 2: strength by attack.
        strength = {s: 1 for s, p in plays if p["orientation"] == "attack"}
        boosts = [(s, p) for s, p in plays if p["orientation"] == "effect" and p["kind"] == "boost"]
        card_boosts = [e for e in self.boost_events if e["via"] == "card"]
        self.check(len(card_boosts) == len(boosts), "one boost event per boost card")
        for (seq, p), e in zip(boosts, card_boosts, strict=False):
            matching = [s for s, a in plays if a["orientation"] == "attack" and a["team"] == p["team"]
                        and a["element"] == p["element"]]
            self.check(e["attacks"] == matching, f"round {self.round}: boost #{seq} reaches every matching attack")
            for s in matching:
                strength[s] += 1
        for team in (0, 1):
            effect = self.effects[team]
            if effect["kind"] != "boost_first_attack":
                continue
            first = next((s for s, a in plays if a["orientation"] == "attack" and a["team"] == team
                          and effect["element"] in ("any", a["element"])), None)
            logged = [e for e in self.boost_events if e["via"] == "protector" and e["team"] == team]
            self.check(len(logged) == 1, "a boosting protector logs once per showdown")
            if logged:
                self.check(logged[0]["attacks"] == ([] if first is None else [first]), "first matching attack")
            if first is not None:
                strength[first] += effect["amount"]
        self.totals = []
        for team in (0, 1):
            points: dict[str, int] = {}
            for s, a in plays:
                if a["orientation"] == "attack" and a["team"] == team:
                    points[a["element"]] = points.get(a["element"], 0) + strength[s]
            logged = self.strength_events[team]
            self.check(logged["team"] == team, "strength events by team")
            self.check({k: v for k, v in logged["points"].items() if v} == points,
                       f"round {self.round}: team {team} strength {logged['points']} != {points}")
            cards = sum(1 for _, a in plays if a["orientation"] == "attack" and a["team"] == team)
            self.check(logged["attack_cards"] == cards, "attack cards counted")
            self.totals.append(dict(points))

    def resolve_defenses(self) -> None:
        """L9 step 3 recomputed: defense cards one at a time, then cancelling protectors."""
        plays = sorted(self.plays.items())
        expected: list[tuple] = []
        totals = [dict(t) for t in self.totals]
        for _, p in plays:
            if p["orientation"] == "effect" and p["kind"] == "defense":
                target = totals[1 - p["team"]]
                cancelled = 1 if target.get(p["element"], 0) > 0 else 0
                target[p["element"]] = target.get(p["element"], 0) - cancelled
                expected.append((p["team"], "card", p["element"], cancelled, target[p["element"]]))
        for team in (0, 1):
            effect = self.effects[team]
            if effect["kind"] != "cancel_attack":
                continue
            target = totals[1 - team]
            for _ in range(effect["count"]):
                element = effect["element"]
                if element == "any":
                    element = max(target, key=target.get) if target else ""
                cancelled = 1 if target.get(element, 0) > 0 else 0
                if cancelled:
                    target[element] -= 1
                expected.append((team, "protector", element, cancelled, target.get(element, 0)))
        logged = [(e["team"], e["via"], e["element"], e["cancelled"], e["left"]) for e in self.cancel_events]
        self.check(logged == expected, f"round {self.round}: cancels {logged} != {expected}")
        self.remaining = totals

    def on_allocation(self, e: Event) -> None:
        if not self.allocations:
            self.resolve_defenses()
        self.allocations.append(e)
        team = e["team"]
        points = {k: v for k, v in e["points"].items() if v}
        self.check(points == {k: v for k, v in self.remaining[team].items() if v},
                   f"round {self.round}: allocation points {points} != {self.remaining[team]}")
        extra = self.effects[team]["count"] if self.effects[team]["kind"] == "extra_marker" else 0
        self.check(e["extra"] == extra and e["cap"] == e["attack_cards"] + extra, "cap = attack cards + extra")
        self.check(e["placed"] == len(e["placements"]) <= e["cap"], "placed at most the cap (L9 step 4)")
        used: dict[str, int] = {}
        seen = set()
        for slug, element in e["placements"]:
            used[element] = used.get(element, 0) + 1
            d = self.defenses[1 - team].get(slug)
            ok = (d is not None and not d["destroyed"] and element in d["elements"] and element not in d["markers"]
                  and (slug, element) not in seen)
            self.check(ok, f"round {self.round}: marker {element} on {slug} is legal")
            seen.add((slug, element))
            if ok:
                d["markers"].append(element)
        self.check(all(n <= points.get(el, 0) for el, n in used.items()), "no more markers than points")
        if e["chosen_by"] == "auto":
            self.check(e["player"] is None, "an automatic allocation has no player")
        else:
            first = next(p for p in self.order if self.team_of[p] == team)
            self.check(e["player"] == first, "the team's first player decides the allocation")

    def on_destroyed(self, e: Event) -> None:
        self.check(len(self.allocations) == 2, "destruction after both allocations (L9 step 5)")
        d = self.defenses[e["team"]][e["defense"]]
        self.check(not d["destroyed"] and sorted(d["markers"]) == sorted(d["elements"]), "destroyed with both")
        d["destroyed"] = True

    def on_showdown_end(self, e: Event) -> None:
        self.check(len(self.allocations) == 2, "both teams allocate")
        for team in (0, 1):
            for slug, d in self.defenses[team].items():
                if not d["destroyed"]:
                    self.check(len(d["markers"]) < 2, f"{slug} with both elements was not destroyed")
        self.check(e["defenses"] == [len(self.live(0)), len(self.live(1))], "defenses left")
        self.stage = "end"

    def on_round_end(self, e: Event) -> None:
        self.check(e["discarded"] == len(self.plays), "every played card to the discard pile (L11)")

    def on_counters(self, e: Event) -> None:
        n = len(self.counters)
        self.check(e["before"] == self.counters, "counters before")
        expected = {p: (c - 1 if c > 1 else n) for p, c in self.counters.items()}
        self.check(e["after"] == expected, "counters handed on 1->2->...->N->1 (L11)")
        self.counters = e["after"]

    def on_match_end(self, e: Event) -> None:
        left = [len(self.live(0)), len(self.live(1))]
        if e["reason"] == "mutual_destruction":
            self.check(left == [0, 0] and e["winner"] is None, "mutual destruction is a draw (L12)")
        elif e["reason"] == "defenses_destroyed":
            self.check(left[1 - e["winner"]] == 0 and left[e["winner"]] > 0, "the winner destroyed every defense")
        else:
            self.check(e["winner"] is None and min(left) > 0, f"{e['reason']} ends in a draw")
        self.check(e["rounds"] == self.round, "rounds played")
