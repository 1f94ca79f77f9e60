"""What a person's move costs the service, as a ratio to the health check measured in the same run.

    .venv/bin/python bench/seat_moves.py [--rounds 7] [--moves 20]

A person plays a game against `greedy` through the API (Django's test client, this one process, DEBUG on, a
SQLite database in a temporary folder migrated and loaded with the official sets), in Echo Realms (the person's
army and the agent's drawn from seed 1, sides a and b) and in an Akin Legends duel: each request is a move
(`POST .../actions/`, the first legal action, then `greedy`'s turns up to the person's next decision, and the
seat's view after them), then the seat's view read again as a board polls it (`GET .../seats/{secret}/` with
its cursor), then the health check. Two people also play the same Echo Realms armies at a table: a change by
hand (`POST .../table-changes/`, 1 HP off the first living unit), the deciding seat's move, the view. A game that
ends is replaced by a new one (not counted). One round makes `--moves` steps of each game in turn, so that a
change in the machine's load falls on every kind alike; the figures are CPU milliseconds (this process's),
medians over the rounds, and their ratio to the health check.

Every request replays the game from its seed through its moves (simulate/engine/seated.py): a move costs more
the longer the game has run. The figures are over the first `--moves` moves of each game and the games that
follow them.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

LEGENDS_DUEL = {"mode": "duel", "teams": [{"spirit": "akin", "players": [{"name": "Ann", "counter": 1}]},
                                          {"spirit": "yulin", "players": [{"name": "Cat", "counter": 2}]}]}


def prepare(folder: Path) -> None:
    os.environ.update(DEBUG="1", DJANGO_SETTINGS_MODULE="cardsdb.settings",
                      DATABASE_URL=f"sqlite:///{folder / 'bench.sqlite3'}", THROTTLE_ANON="1000000/minute")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("createcachetable", verbosity=0)
    call_command("load_official", verbosity=0)


class Seat:
    """A person's seat in a game of one kind, opened again whenever its game ends."""

    def __init__(self, client: Any, url: str, body: dict[str, Any]) -> None:
        self.client, self.url, self.body = client, url, body
        self.link = ""
        self.cursor = 0
        self.games = 0
        self.open()

    def open(self) -> None:
        answer = self.client.post(self.url, {**self.body, "seed": self.games}, content_type="application/json")
        assert answer.status_code == 201, answer.content
        self.link = next(seat["link"] for seat in answer.json()["seats"] if seat["link"])
        self.cursor = 0
        self.games += 1
        self.view()

    def view(self) -> dict[str, Any]:
        answer = self.client.get(self.link, {"since": self.cursor})
        assert answer.status_code == 200, answer.content
        body = answer.json()
        self.cursor = body["cursor"]
        return body

    def move(self) -> None:
        answer = self.client.post(self.link + "actions/", {"index": 0}, content_type="application/json")
        assert answer.status_code == 200, answer.content
        if answer.json()["status"] != "playing":
            self.open()

    def steps(self) -> list[tuple[str, Callable[[], Any]]]:
        return [("move", self.move), ("view", self.view)]


class TableGame(Seat):
    """A game at a table, both seats people: a change by hand (1 HP off the first living unit), then the deciding
    seat's move (its first legal action), then the view read again as the sheet polls it."""

    def open(self) -> None:
        answer = self.client.post(self.url, {**self.body, "seed": self.games}, content_type="application/json")
        assert answer.status_code == 201, answer.content
        self.links = {seat["player"]: seat["link"] for seat in answer.json()["seats"]}
        self.link = self.links["a"]
        self.cursor = 0
        self.games += 1
        self.last = self.view()

    def sent(self, path: str, body: dict[str, Any]) -> None:
        answer = self.client.post(path, body, content_type="application/json")
        assert answer.status_code == 200, answer.content
        self.last = answer.json()
        if self.last["status"] != "playing":
            self.open()

    def change(self) -> None:
        unit = next(u for u in self.last["observation"]["units"] if u["alive"])
        self.sent(self.link + "table-changes/", {"change": ["hp", unit["id"], -1]})

    def move(self) -> None:
        self.sent(self.links[self.last["turn"]] + "actions/", {"index": 0})

    def steps(self) -> list[tuple[str, Callable[[], Any]]]:
        return [("change by hand", self.change), ("move", self.move), ("view", self.view)]


def cpu_ms(call: Callable[[], Any]) -> float:
    start = time.process_time()
    call()
    return (time.process_time() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--moves", type=int, default=20, help="moves of each game a round")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="seat-bench-") as tmp:
        prepare(Path(tmp))
        from django.test import Client

        from realms.studies import command_army

        client = Client()
        rng = random.Random(1)
        armies = {side: {"slots": command_army("random", rng)} for side in ("a", "b")}
        seats = {
            "Echo Realms": Seat(client, "/api/simulate/realms/games/",
                                {"armies": armies, "seats": {"a": "person", "b": "greedy"}}),
            "Akin Legends duel": Seat(client, "/api/simulate/legends/games/",
                                      {"setup": LEGENDS_DUEL, "seats": {"t0p0": "person", "t1p0": "greedy"}}),
            "Echo Realms table": TableGame(client, "/api/simulate/realms/games/",
                                           {"armies": armies, "seats": {"a": "person", "b": "person"}, "table": True}),
        }
        kinds = ["health check (baseline)", *(f"{name}: {what}" for name, seat in seats.items()
                                              for what, _ in seat.steps())]
        rounds: dict[str, list[float]] = {kind: [] for kind in kinds}
        for _ in range(args.rounds):
            spent: dict[str, list[float]] = {kind: [] for kind in kinds}
            for _ in range(args.moves):
                for name, seat in seats.items():
                    for what, step in seat.steps():
                        spent[f"{name}: {what}"].append(cpu_ms(step))
                    spent["health check (baseline)"].append(cpu_ms(lambda: client.get("/healthz")))
            for kind in kinds:
                rounds[kind].append(statistics.median(spent[kind]))
        print(f"A person's move against greedy, and two people's at a table, through the API in one process (SQLite, "
              f"DEBUG on); medians of "
              f"{args.rounds} rounds of {args.moves} moves of each game; games played: "
              + ", ".join(f"{name} {seat.games}" for name, seat in seats.items()))
        print_ratios(rounds)


def print_ratios(rounds: dict[str, list[float]]) -> None:
    """Each kind's median CPU milliseconds over the rounds, its range, and its ratio to the first kind's (the
    health check)."""
    base = statistics.median(next(iter(rounds.values())))
    print(f"  {'request':<34} {'CPU ms':>8} {'min':>8} {'max':>8} {'vs health':>10}")
    for kind, values in rounds.items():
        middle = statistics.median(values)
        print(f"  {kind:<34} {middle:8.2f} {min(values):8.2f} {max(values):8.2f} {middle / base:9.1f}x")


if __name__ == "__main__":
    main()
