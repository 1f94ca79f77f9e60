"""A suggestion from a published field study to its confirmed patch, on two Celery workers, against a fixed count.

    .venv/bin/python bench/suggestion.py [--field-matches 30000] [--seed 2026] [--band 3] [--screen-seeds 1000]
                                         [--redis-db 9] [--pure] [--sweep | --no-sweep]

On a temporary SQLite database (migrated, the official sets loaded), Redis database --redis-db and two
`celery -A cardsdb worker --pool solo` processes (bench/batch_workers.py's `environment`), every study stored
as the API stores it (`batches.create_batch`, then `background.queue_batch`):

  field study      the official Echo Realms sets, the study's default agents, --field-matches matches (more
                   when a card is measured wider than the publishing bound, up to --max-field-matches),
                   published by a staff user; its top and bottom card deltas
  suggest          band --band, --screen-seeds seeds for the screen; followed to done, then every confirming
                   field what-if (sequential: each patched card placed against the band by a test at each of
                   its edges; a round refined from what the last measured, up to 3) to done; the patch, each
                   card's delta before, predicted and confirmed, the cards left, games, wall and CPU time,
                   games per fix confirmed inside the band
  fixed count      round 1's field what-if of the same patch without `sequential`, the seeds a fixed test of
                   the same errors needs (the sequential confirmation's `fixed_games` / 2: a field what-if
                   plays each seed twice); its games and time, and sequential games / fixed games
  sweep            the most out-of-band card's atk over 6 values around its own (field base, band ±3 points),
                   the seeds chosen so that each value's delta is measured within about ±3 points (capped by
                   the batch limit); its time and each value's interval

CPU time is this process's, the live workers' (/proc) and ended children's (RUSAGE_CHILDREN).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.batch_workers import PG_URL, Workers, children_cpu, engine_build, environment  # noqa: E402

GAME = "realms"
POLL = 0.2  # seconds between looks at a batch's status
PROGRESS_EVERY = 15.0  # seconds between progress lines
SWEEP_VALUES = 6
SWEEP_HALF_WIDTH = 0.03  # each sweep value's delta interval aimed at, ± (3 points)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--field-matches", type=int, default=30000, help="matches of the field study")
    parser.add_argument("--max-field-matches", type=int, default=100000,
                        help="the most matches a field study is raised to so that it can be published")
    parser.add_argument("--publish-anyway", action="store_true",
                        help="(development with small counts) mark the field study published even when a card is "
                             "measured wider than the bound; said in the output")
    parser.add_argument("--screen-seeds", type=int, default=1000, help="seeds of the suggestion's screen")
    parser.add_argument("--band", type=float, default=3.0, help="the band, ± points")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--sweep", action=argparse.BooleanOptionalAction, default=True,
                        help="the sweep section (default on)")
    parser.add_argument("--sweep-seeds", type=int, default=0,
                        help="seeds per sweep value (default: chosen for about ±3 points, capped by the batch limit)")
    parser.add_argument("--fixed-cap", type=int, default=300000,
                        help="the most games the fixed-count what-if plays (said when it caps)")
    parser.add_argument("--redis-db", type=int, default=9, help=(
        "Redis database number, flushed at the end (not 10 to 13: tests/simulate/test_workers.py empties those)"))
    parser.add_argument("--redis", default="127.0.0.1:6379", help="Redis host:port")
    parser.add_argument("--pure", action="store_true", help="plain Python engines, not the compiled ones")
    parser.add_argument("--postgres", nargs="?", const=PG_URL, default="", metavar="URL",
                        help="a fresh PostgreSQL database instead of SQLite")
    args = parser.parse_args()
    with environment(args, "suggestion-bench-") as workers:
        import django

        django.setup()
        workers.start("suggest-a")
        workers.start("suggest-b")
        Run(args, workers).all()


def cpu_now(workers: Workers) -> float:
    """CPU seconds so far of this process, the live workers and the children that ended."""
    return time.process_time() + workers.cpu_seconds() + children_cpu()


def pts(rate: float | None) -> str:
    return "—" if rate is None else f"{rate * 100:+.1f}"


def ci_text(ci: Mapping[str, float] | None) -> str:
    return "—" if not ci else f"[{ci['low'] * 100:+.1f}, {ci['high'] * 100:+.1f}]"


class Run:
    """The studies of one run, in order, and what each measured."""

    def __init__(self, args: argparse.Namespace, workers: Workers) -> None:
        from django.contrib.auth import get_user_model

        self.args, self.workers = args, workers
        self.staff = get_user_model().objects.create_user("bench-staff", password=None, is_staff=True)
        self.band = args.band / 100

    def all(self) -> None:
        from django.db import connection

        print(f"Suggestion bench: Echo Realms, catalogue the official sets (load_official), agents the study "
              f"default; engines {engine_build()}; database {connection.vendor}; two Celery workers "
              f"(--pool solo); seed {self.args.seed}")
        field = self.field_study()
        suggestion, rounds, spent = self.suggest(field)
        if rounds:
            self.fixed_count(suggestion, rounds, spent)
        if self.args.sweep:
            self.sweep(field)

    # ------------------------------------------------------------------------------------- running

    def queued(self, kind: str, inputs: dict[str, Any], count: int, seed: int, what: str,
               progress: Callable[[Any], str] | None = None):
        """A batch stored as the API stores it, queued, followed to done; (batch, wall s, CPU s)."""
        from simulate import background, batches

        cpu, wall = cpu_now(self.workers), time.perf_counter()
        batch = batches.create_batch(game=GAME, kind=kind, inputs=inputs, count=count, seed=seed, user=self.staff)
        background.queue_batch(batch.pk)
        batch = self.wait(batch.pk, what, progress)
        return batch, time.perf_counter() - wall, cpu_now(self.workers) - cpu

    def wait(self, pk: Any, what: str, progress: Callable[[Any], str] | None = None):
        """A batch followed until it ends, a progress line now and then; it must end done."""
        from simulate.models import Batch

        start = last = time.perf_counter()
        while True:
            batch = Batch.objects.defer("tally").get(pk=pk)
            if batch.status not in ("queued", "running"):
                break
            if time.perf_counter() - last >= PROGRESS_EVERY:
                last = time.perf_counter()
                extra = f"; {progress(batch)}" if progress else ""
                print(f"    {what}: {batch.played:,}/{batch.count:,} matches, {last - start:.0f} s{extra}",
                      flush=True)
            time.sleep(POLL)
        batch = Batch.objects.get(pk=pk)
        if batch.status != Batch.Status.DONE:
            raise SystemExit(f"{what} ended {batch.status}: {batch.error}")
        return batch

    # --------------------------------------------------------------------------------- field study

    def field_study(self):
        """A field study of the official sets large enough to publish, published."""
        from simulate import publishing
        from simulate.models import Batch

        count = self.args.field_matches
        while True:
            batch, wall, cpu = self.queued("field", {}, count, self.args.seed, "field study")
            wide = publishing.too_wide(batch)
            print(f"Field study: {count:,} matches of random legal armies of the official sets, seeds "
                  f"{self.args.seed}..{self.args.seed + count - 1}: {wall:.1f} s wall, {cpu:.1f} s CPU; "
                  f"{len(wide)} card(s) measured wider than ±{publishing.max_half_width() * 100:g} points")
            if not wide:
                break
            needed = publishing.needed_matches(batch, wide)
            widest = wide[0]
            print(f"  widest: {widest['card']} ±{(widest['half_width'] or 0) * 100:.1f} points "
                  f"({widest['appearances']} appearances); about {needed:,} matches would publish")
            if needed and count < needed <= self.args.max_field_matches:
                count = math.ceil(needed * 1.1)  # a margin: the estimate scales the widest card's interval
                print(f"  raising the field study to {count:,} matches")
                continue
            if not self.args.publish_anyway:
                raise SystemExit(f"not publishable within --max-field-matches {self.args.max_field_matches:,}")
            Batch.objects.filter(pk=batch.pk).update(published_at=batch.created_at, published_by=self.staff)
            print("  NOT PUBLISHABLE at this count: marked published anyway (--publish-anyway; development only)")
            break
        if not self.args.publish_anyway or not wide:
            batch = publishing.publish(batch, user=self.staff)
            print(f"  published: it took {batch.played:,} matches to measure every card within "
                  f"±{publishing.max_half_width() * 100:g} points")
        batch.refresh_from_db()
        rows = sorted((row for row in batch.results.get("cards", []) if row["delta"] is not None),
                      key=lambda row: -row["delta"])
        outside = sum(abs(row["delta"]) > self.band for row in rows)
        print(f"  {len(rows)} cards measured, {outside} with a delta outside ±{self.args.band:g} points; "
              "delta (win rate with the card less without it, points, 95% interval):")
        for label, chosen in (("top", rows[:5]), ("bottom", rows[-5:])):
            print(f"    {label}: " + "; ".join(f"{row['card']} {pts(row['delta'])} {ci_text(row['delta_ci'])}"
                                          for row in chosen))
        self.field_rows = {row["card"]: row for row in rows}
        return batch

    # ------------------------------------------------------------------------------------- suggest

    def suggest(self, field):
        """The suggestion, followed to done, then every confirmation round; the figures. Returns (suggestion,
        the rounds, (screen games, wall, CPU))."""
        seeds = self.args.screen_seeds
        inputs = {"study": str(field.pk), "band": self.args.band}
        print(f"\nSuggest: band ±{self.args.band:g} points from the published field study ({field.played:,} "
              f"matches), screen of {seeds:,} seeds per patched copy (seeds {self.args.seed + 1}..)")
        batch, wall, cpu = self.queued("suggest", inputs, seeds, self.args.seed + 1, "screen")
        found = (batch.results or {}).get("suggestion") or {}
        print(f"  screen: {batch.plan.get('pairings')} copies of the field (the field and each move) x {seeds:,} "
              f"seeds = {batch.played:,} games; {wall:.1f} s wall, {cpu:.1f} s CPU; cards screened: "
              f"{', '.join(batch.inputs['fix'])}")
        print(f"  search: {found.get('search', '—')}")
        rounds: list[Any] = []
        c_wall = c_cpu = 0.0
        if found.get("patch"):
            start, cpu_start = time.perf_counter(), cpu_now(self.workers)
            while (latest := self.next_round(batch, rounds, start)) is not None:
                rounds.append(self.wait(latest.pk, f"confirmation round {len(rounds) + 1}", sequential_progress))
            c_wall, c_cpu = time.perf_counter() - start, cpu_now(self.workers) - cpu_start
            batch.refresh_from_db()
        self.print_patch(batch, found)
        screen_games = batch.played
        if not rounds:
            print("  no patch: nothing to confirm")
            return batch, None, (screen_games, wall, cpu)
        games = 0
        for confirmation in rounds:
            sequential = (confirmation.results or {}).get("sequential") or {}
            games += sequential.get("games") or confirmation.played
            print(f"  confirmation round {confirmation.inputs.get('round', 1)} (field what-if of "
                  f"{shown_patch(confirmation.inputs['patch'])}; sequential: delta {sequential.get('delta')} points, "
                  f"alpha {sequential.get('alpha')}, beta {sequential.get('beta')}, at most {confirmation.count // 2:,} "
                  f"seeds, seeds {confirmation.seed}..): {sequential.get('games'):,} games "
                  f"({'stopped early, every card placed' if sequential.get('stopped_early') else 'its whole count'}); "
                  f"a fixed count of the same errors: {sequential.get('fixed_games')}")
            for test in sequential.get("tests", []):
                print(f"    test {test.get('of')}: {test['decision']} after {test['pairs']:,} pairs "
                      f"(a fixed test: {test['fixed_pairs']} pairs)")
        print(f"  confirmations: {len(rounds)} round(s), {games:,} games; {c_wall:.1f} s wall (from the screen's "
              f"end), {c_cpu:.1f} s CPU")
        fixes = self.confirmed_fixes(batch, found)
        toward = self.moved_toward(batch, found)
        total = screen_games + games
        print("  a fix confirmed: a patched card whose confirmed delta's whole 95% interval lies inside the band "
              "(in the last round)")
        print(f"  fixes confirmed: {fixes} of {len(found['patch'])} patched cards; {toward} more moved toward the "
              "band (a confirmed shift against the sign of the delta before, |delta| smaller) but not confirmed "
              "inside it")
        print(f"  games in all (screen + confirmations): {total:,}; wall {wall + c_wall:.1f} s; CPU "
              f"{cpu + c_cpu:.1f} s; games per fix confirmed: "
              + (f"{total / fixes:,.0f} (confirmations alone {games / fixes:,.0f})" if fixes else "—"))
        return batch, rounds, (screen_games, wall, cpu)

    def next_round(self, batch, rounds: list[Any], start: float):
        """The next confirmation round queued for the suggestion, None once the last one done queued no other."""
        from simulate.study_kinds import suggest

        while True:
            latest = suggest.confirmation_of(batch)
            if latest is not None and latest.pk not in {done.pk for done in rounds}:
                return latest
            if rounds and self.recorded(batch, rounds[-1]):
                # A refined round is queued in the same commit that records the last one, or none is.
                latest = suggest.confirmation_of(batch)
                return None if latest is None or latest.pk == rounds[-1].pk else latest
            if time.perf_counter() - start > 60 and not rounds:
                raise SystemExit("the confirming what-if was not queued within a minute")
            time.sleep(POLL)

    def recorded(self, batch, done) -> bool:
        """Whether the suggestion has recorded what round `done` measured."""
        batch.refresh_from_db()
        rounds = [row["round"] for row in (batch.results or {}).get("confirmations") or []]
        return done.inputs.get("round", 1) in rounds

    def print_patch(self, batch, found: Mapping[str, Any]) -> None:
        """The patch, card by card: change, delta before, predicted, confirmed and its verdict; the cards left."""
        from simulate.study_kinds.suggest import round_changes, shown_change

        last = (batch.results or {}).get("confirmation") or {}
        confirmed = last.get("cards") or {}
        print(f"  patch (band ±{self.args.band:g} points; deltas in points, 95% intervals; predicted by the screen's "
              f"model for the search's value; confirmed = the field study's delta plus the shift the last "
              f"confirmation round ({last.get('round', 1)}) measured, paired, for the value it played):")
        for change, final in zip(found.get("changes", []), round_changes(found.get("changes", []),
                                                                         last.get("patch") or []), strict=True):
            after = confirmed.get(change["card"])
            said = "not confirmed" if after is None else \
                f"{pts(after['delta'])} {ci_text(after['delta_ci'])} {after['verdict']}"
            refined = "" if final["after"] == change["after"] else f", refined to {final['after']}"
            print(f"    {change['card']:28} {shown_change(change):16} before {pts(change['delta_before'])} "
                  f"{ci_text(change['delta_before_ci'])}, predicted {pts(change['predicted_delta'])}{refined}; "
                  f"confirmed {said}")
        for row in found.get("unfixed", []):
            print(f"    not fixed: {row['card']}: {row['why']}")
        for row in ((batch.results or {}).get("confirmation") or {}).get("pushed") or []:
            print(f"    pushed out by the patch: {row['card']} {pts(row['delta'])} {ci_text(row['delta_ci'])}")

    def confirmed_fixes(self, batch, found: Mapping[str, Any]) -> int:
        """Patched cards confirmed inside the band."""
        confirmed = ((batch.results or {}).get("confirmation") or {}).get("cards") or {}
        return sum(1 for change in found.get("changes", []) if change["field"] is not None
                   and (confirmed.get(change["card"]) or {}).get("verdict") == "inside")

    def moved_toward(self, batch, found: Mapping[str, Any]) -> int:
        """Patched cards moved toward the band but not confirmed inside it."""
        confirmed = ((batch.results or {}).get("confirmation") or {}).get("cards") or {}
        toward = 0
        for change in found.get("changes", []):
            after = confirmed.get(change["card"])
            if change["field"] is None or after is None or after["verdict"] == "inside":
                continue
            toward += after["shift"] * change["delta_before"] < 0 and abs(after["delta"]) < abs(change["delta_before"])
        return toward

    # ---------------------------------------------------------------------------------- fixed count

    def fixed_count(self, suggestion, rounds: list[Any], spent: tuple[int, float, float]) -> None:
        """The first round's field what-if at the fixed count a test of the same errors needs: over the batch
        limit, in parts of consecutive seeds (the same matches one batch would play), all queued at once; every
        round's fixed count summed, as each round's own pairs estimate it."""
        from simulate import background, batches
        from simulate.batches import batch_limit

        confirmation = rounds[0]
        every = [(done.results or {}).get("sequential") or {} for done in rounds]
        print(f"\nEvery round at a fixed count of the same errors: {sum(s.get('fixed_games') or 0 for s in every):,} "
              f"games (each round's fixed_games), against {sum(s.get('games') or 0 for s in every):,} played "
              "sequentially")
        sequential = confirmation.results["sequential"]
        fixed_games = sequential.get("fixed_games")
        if not fixed_games:
            print("\nFixed count: the sequential confirmation gave no fixed_games (no spread measured); skipped")
            return
        seeds = math.ceil(fixed_games / 2)
        played_seeds = min(seeds, math.ceil(self.args.fixed_cap / 2))
        part = batch_limit(searching=False) // 2
        inputs = {"base": "field", "patch": confirmation.inputs["patch"]}
        print(f"\nFixed count: round 1's field what-if of the same patch without `sequential`, {seeds:,} seeds "
              f"(the sequential confirmation's fixed_games {fixed_games:,} / 2 games per seed), seeds "
              f"{confirmation.seed}..; in {-(-played_seeds // part)} batch(es) of consecutive seeds (a batch holds at "
              f"most {part * 2:,} games), queued together"
              + ("" if played_seeds == seeds else f"; CAPPED at {played_seeds:,} seeds (--fixed-cap)"))
        cpu, wall = cpu_now(self.workers), time.perf_counter()
        queued = []
        for first in range(0, played_seeds, part):
            batch = batches.create_batch(game=GAME, kind="whatif", inputs=inputs, count=min(part, played_seeds - first),
                                         seed=confirmation.seed + first, user=self.staff)
            background.queue_batch(batch.pk)
            queued.append(batch.pk)
        games = sum(self.wait(pk, f"fixed what-if part {n + 1}").played for n, pk in enumerate(queued))
        wall, cpu = time.perf_counter() - wall, cpu_now(self.workers) - cpu
        print(f"  {games:,} games; {wall:.1f} s wall, {cpu:.1f} s CPU (sequential confirmation: "
              f"{sequential['games']:,} games)")
        ratio = sequential["games"] / games
        print(f"  sequential games / fixed games: {sequential['games']:,} / {games:,} = {ratio:.3f} "
              f"(target at most 0.5: {'met' if ratio <= 0.5 else 'NOT met'}"
              + ("" if played_seeds == seeds else f"; against the uncapped {fixed_games:,}: "
                 f"{sequential['games'] / fixed_games:.3f}") + ")")
        print(f"  screen + sequential round 1 {spent[0] + sequential['games']:,} games against screen + fixed "
              f"count {spent[0] + games:,}")

    # --------------------------------------------------------------------------------------- sweep

    def sweep(self, field) -> None:
        """The most out-of-band card's atk over 6 values around its own, on a field base, band ±3 points."""
        from simulate.batches import batch_limit
        from simulate.services import game_studies

        studies = game_studies(GAME)
        card, row = max(self.field_rows.items(), key=lambda item: abs(item[1]["delta"]))
        now = (studies.patch_values(card) or {}).get("atk")
        tuning = studies.tuning["atk"]
        if not isinstance(now, int):
            print(f"\nSweep: {card} has no atk to sweep; skipped")
            return
        low, high = max(tuning.low, now - SWEEP_VALUES // 2), min(tuning.high, now + SWEEP_VALUES // 2)
        values = [v for v in range(low, high + 1) if v != now][:SWEEP_VALUES]
        # A delta's interval narrows with the square root of the matches; the field study measured this card.
        half = (row["delta_ci"]["high"] - row["delta_ci"]["low"]) / 2
        wanted = math.ceil(field.played * (half / SWEEP_HALF_WIDTH) ** 2)
        cap = batch_limit(searching=False) // (len(values) + 1)
        seeds = self.args.sweep_seeds or min(wanted, cap)
        print(f"\nSweep: {card} atk over {values} (now {now}), field base, band ±3 points; the field study "
              f"measured it ±{half * 100:.1f} points at {field.played:,} matches, so about {wanted:,} seeds per "
              f"value would give ±3; the batch limit allows {cap:,} seeds ({len(values) + 1} copies); playing "
              f"{seeds:,} seeds per value (seeds {self.args.seed + 2}..)")
        inputs = {"base": "field", "band": 3, "sweep": [{"card": card, "field": "atk", "values": values}]}
        batch, wall, cpu = self.queued("sweep", inputs, seeds, self.args.seed + 2, "sweep")
        print(f"  {batch.played:,} games; {wall:.1f} s wall, {cpu:.1f} s CPU")
        for point in batch.results.get("curve", []):
            ci = point.get("delta_ci")
            width = "—" if not ci else f"±{(ci['high'] - ci['low']) * 50:.1f}"
            print(f"    atk {point['values'][0]:>3}: delta {pts(point.get('delta'))} {ci_text(ci)} ({width} points), "
                  f"{point.get('band_verdict')}")


def shown_patch(patch: list[Mapping[str, Any]]) -> str:
    return ", ".join(f"{entry['card']} {field} {value}" for entry in patch for field, value in entry["changes"].items())


def sequential_progress(batch) -> str:
    """The confirmation's tests as they stand (its results are written as chunks are stored)."""
    sequential = (batch.results or {}).get("sequential") or {}
    tests = sequential.get("tests") or []
    decided = sum(test["decision"] != "undecided" for test in tests)
    return f"{decided} of {len(tests)} tests decided" if tests else "no test yet"


if __name__ == "__main__":
    main()
