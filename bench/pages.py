"""What each page costs to render, as a ratio to the health check measured in the same run.

    .venv/bin/python bench/pages.py [--rounds 7] [--repeats 20]

Every page is requested through Django's whole stack (middleware, sessions, templates, static URLs) with
its test client (DEBUG on, as `make run` serves), in this one process, on a SQLite database in a temporary
folder migrated and loaded with the official sets: the home page, both galleries (first page and a
filtered one), both card pages, both builders with an army or setup from its code, the match form, an
Echo Realms and an Akin Legends replay, the study form and a field study's report. One round requests
every page `--repeats` times in turn, so that a change in the machine's load falls on all of them alike;
the figures are medians over the rounds.
The database queries and the size of each answer are printed beside them (they do not vary).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def prepare(folder: Path) -> dict[str, str]:
    """A migrated database with the official sets, a match of each game and a field study; the pages."""
    os.environ.update(DEBUG="1", DJANGO_SETTINGS_MODULE="cardsdb.settings",
                      DATABASE_URL=f"sqlite:///{folder / 'bench.sqlite3'}")
    import django

    django.setup()
    from django.core.management import call_command

    # Not django.test.utils.setup_test_environment: it instruments every template render, which would
    # weigh on the pages with many templates. The test client's host is allowed with DEBUG on.
    call_command("migrate", verbosity=0)
    call_command("createcachetable", verbosity=0)
    call_command("load_official", verbosity=0)

    import random

    from legends.models import DefenseCard
    from realms.engine.army import Slot
    from realms.models import Character
    from realms.services import army_code
    from realms.studies import command_army
    from simulate import batches
    from simulate.services import play_match

    army = command_army("random", random.Random(1))
    code = army_code([Slot(card=s["card"], line=s["line"]) for s in army])
    realms, _ = play_match(game="realms", inputs={"armies": {"a": {"slots": army}, "b": {"slots": army}}}, seed=1)
    teams = {"mode": "teams", "teams": [
        {"spirit": "akin", "players": [{"name": "Ann", "counter": 1}, {"name": "Ben", "counter": 3}]},
        {"spirit": "yulin", "players": [{"name": "Cat", "counter": 2}, {"name": "Dan", "counter": 4}]}]}
    legends, _ = play_match(game="legends", inputs={"mode": "teams", "setup": teams}, seed=1)
    study = batches.play_here(batches.create_batch(game="realms", kind="field", inputs={}, count=200, seed=1).pk)
    assert study is not None  # played here
    return {
        "health check (baseline)": "/healthz",
        "home": "/",
        "Echo Realms gallery": "/realms/cards/",
        "Echo Realms gallery, filtered": "/realms/cards/?q=class:mage+atk>=5",
        "Echo Realms card": f"/realms/cards/{Character.objects.order_by('pk')[0].slug}/",
        "army builder, from a code": f"/realms/armies/build/?code={code}",
        "Akin Legends gallery": "/legends/cards/",
        "Akin Legends gallery, defenses": "/legends/cards/?kind=defenses&q=element:fire",
        "Akin Legends card": f"/legends/cards/{DefenseCard.objects.order_by('pk')[0].slug}/",
        "setup builder": "/legends/setups/build/",
        "match form": "/matches/new/",
        "Echo Realms replay": f"/matches/{realms.pk}/",
        "Akin Legends replay": f"/matches/{legends.pk}/",
        "study form": "/studies/new/",
        "field study report": f"/studies/{study.pk}/",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pages-bench-") as tmp:
        pages = prepare(Path(tmp))
        from django.db import connection
        from django.test import Client
        from django.test.utils import CaptureQueriesContext

        client = Client()
        facts = {}
        for name, url in pages.items():  # warm-up, and what does not vary
            with CaptureQueriesContext(connection) as queries:
                response = client.get(url)
            assert response.status_code == 200, (url, response.status_code)
            facts[name] = (len(queries), len(response.content))
        times: dict[str, list[float]] = {name: [] for name in pages}
        for _ in range(args.rounds):
            for name, url in pages.items():
                start = time.perf_counter()
                for _ in range(args.repeats):
                    client.get(url)
                times[name].append((time.perf_counter() - start) / args.repeats)
    medians = {name: statistics.median(values) for name, values in times.items()}
    base = medians["health check (baseline)"]
    print(f"{args.rounds} rounds of {args.repeats} requests per page; medians over the rounds\n")
    print(f"{'page':34} {'ms':>8} {'× health':>9} {'queries':>8} {'kB':>7}")
    for name, seconds in medians.items():
        count, size = facts[name]
        print(f"{name:34} {seconds * 1000:8.2f} {seconds / base:9.1f} {count:8d} {size / 1000:7.1f}")


if __name__ == "__main__":
    main()
