"""What an Army Sheet costs the service, as a ratio to the health check measured in the same run.

    .venv/bin/python bench/army_sheet.py [--rounds 5] [--sheets 4]

Through the API (Django's test client, this one process, DEBUG on, a SQLite database in a temporary folder
migrated and loaded with the official sets): `GET /api/realms/armies/sheet.pdf?code=` of random legal armies of
the official cards (seeded), each drawn anew (its HTML never seen before: a cache miss), then the same sheet again
(a cache hit: the HTML is rendered and its digest found), then the health check. One round asks for `--sheets`
sheets of each kind in turn, so that a change in the machine's load falls on every kind alike; the figures are
CPU milliseconds (this process's), medians over the rounds, and their ratio to the health check. WeasyPrint's
first sheet in a process also loads its fonts: it is drawn before the rounds and not counted.
"""

from __future__ import annotations

import argparse
import functools
import os
import random
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.seat_moves import cpu_ms, prepare, print_ratios  # noqa: E402  (the seat benchmark's database, clock and table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sheets", type=int, default=4, help="sheets of each kind a round")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sheet-bench-") as tmp:
        os.environ["THROTTLE_SHEETS"] = "1000000/minute"
        prepare(Path(tmp))
        import logging

        from django.test import Client

        from realms import services
        from realms.studies import command_army

        logging.getLogger("weasyprint").setLevel(logging.ERROR)
        logging.getLogger("fontTools").setLevel(logging.ERROR)
        client = Client()
        rng = random.Random(1)

        def sheet(code: str) -> None:
            answer = client.get("/api/realms/armies/sheet.pdf", {"code": code})
            assert answer.status_code == 200 and answer["Content-Type"] == "application/pdf", answer.content[:300]

        def new_code() -> str:
            code = services.army_code(services.slots_from_data(command_army("random", rng)))
            assert code is not None
            return code

        sheet(new_code())  # WeasyPrint's fonts, loaded once per process
        kinds = ["health check (baseline)", "new sheet (drawn)", "same sheet again (cached)"]
        rounds: dict[str, list[float]] = {kind: [] for kind in kinds}
        for _ in range(args.rounds):
            spent: dict[str, list[float]] = {kind: [] for kind in kinds}
            for _ in range(args.sheets):
                code = new_code()
                spent["new sheet (drawn)"].append(cpu_ms(functools.partial(sheet, code)))
                spent["same sheet again (cached)"].append(cpu_ms(functools.partial(sheet, code)))
                spent["health check (baseline)"].append(cpu_ms(lambda: client.get("/healthz")))
            for kind in kinds:
                rounds[kind].append(statistics.median(spent[kind]))
        print(f"Army Sheets of random legal official armies (seed 1), through the API in one process (SQLite, DEBUG "
              f"on); medians of {args.rounds} rounds of {args.sheets} sheets of each kind")
        print_ratios(rounds)


if __name__ == "__main__":
    main()
