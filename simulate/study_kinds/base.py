"""What every kind of study is made of, and the pieces kinds share.

A kind is one module of this package holding one `StudyKind` subclass: its inputs (the request keys it reads,
what it requires and refuses), its plan (pairings, units of play), its tally of a unit, its results read off
the summed tally, its report (a template partial and the text tables of the command line), its command-line
flags and its page form fields. The batch runner, the API, the pages and the command line ask the kind of a
study for each of these and name none (see docs/architecture.md, "A new kind of study").
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar, cast

from rest_framework import serializers

from simulate import services
from simulate.engine import runner
from simulate.engine.errors import InputError
from simulate.engine.tally import (
    DRAW,
    LOSS,
    WIN,
    Tally,
    count_acted_first,
    count_appearances,
    count_match,
    figures,
    fingerprint,
    keep_sample,
    merge,
    new_tally,
)
from simulate.services import IllegalMatchSetup, PlaysFeatures, PreparedMatch

if TYPE_CHECKING:
    from argparse import _ArgumentGroup

    from django import forms

    from simulate.models import Batch
    from simulate.pages.games import GamePages
    from simulate.services import GameStudies


class UnitCancelled(Exception):
    """A long unit stopped on the way: its batch was cancelled."""


@dataclass(frozen=True)
class Pairing:
    """Two sides, their agents and options; a field pairing draws its sides from `pool` match by match."""

    label: dict[str, Any]
    prepared: PreparedMatch
    swap: bool
    pool: Any = None
    patched: frozenset[str] = frozenset()  # what a what-if patched, to pair the outcomes of its armies


@dataclass(frozen=True)
class Study:
    """A planned study: its pairings, each played `per_pairing` times (both halves with one seed when paired)."""

    game: str
    kind: str
    pairings: list[Pairing]
    per_pairing: int
    paired: bool  # a what-if: every unit plays each pairing with the same seed
    # When set, the count is shared among this many units, each playing count // units matches of its first
    # pairing in a row (an army search's islands); 0: a unit is one match, or a seed of every pairing when paired.
    units_fixed: int = 0

    @property
    def baseline_size(self) -> int:
        """The pairings of a paired study's baseline (labelled `variant: baseline`, first), each patched copy
        after it as many: half of a what-if's, a sweep's baseline then one copy per value."""
        size = sum(1 for pairing in self.pairings if pairing.label.get("variant") == "baseline")
        return size or len(self.pairings) // 2

    @property
    def patch_changes_nothing(self) -> bool:
        """A paired study whose every patched copy would play the very same matches as its baseline (a paired
        study without a patch, two catalogue states that are the same, plays them to show that nothing moved)."""
        if not self.paired or not self.pairings or not any(p.patched for p in self.pairings):
            return False
        size = self.baseline_size
        baseline = [(p.prepared, p.pool) for p in self.pairings[:size]]
        return all([(p.prepared, p.pool) for p in self.pairings[start:start + size]] == baseline
                   for start in range(size, len(self.pairings), size))

    @property
    def units(self) -> int:
        """Units of play: a match each, or a seed of every pairing when paired (or `units_fixed`)."""
        if self.units_fixed:
            return self.units_fixed
        return self.per_pairing if self.paired else self.per_pairing * len(self.pairings)

    @property
    def matches_per_unit(self) -> int:
        """Matches a unit plays."""
        if self.units_fixed:
            return self.per_pairing // self.units_fixed
        return len(self.pairings) if self.paired else 1

    @property
    def count(self) -> int:
        """Matches the whole study plays."""
        return self.units * self.matches_per_unit


@dataclass(frozen=True)
class PlanRequest:
    """What a kind plans its pairings from: a stored or requested study, and its game's study role."""

    game: str
    inputs: Mapping[str, Any]
    per_pairing: int
    swap_sides: bool
    user: Any
    studies: GameStudies

    def prepare(self, inputs: Mapping[str, Any]) -> PreparedMatch:
        """The match of a request of the game (the study's agents, else the game's study agent in every seat),
        checked as a match is."""
        agents = self.inputs.get("agents")
        prepared = services.prepare_match(game=self.game, inputs=inputs, agents=agents, user=self.user)
        if agents is None:
            prepared = replace(prepared, agents=self.studies.level_agents(prepared, self.studies.study_agent))
        return prepared

    def prepare_pair(self, first: Any, second: Any, paths: tuple[str, str]) -> PreparedMatch:
        """The match of entrant `first` (first side) against `second`, a refusal naming the entrants' `paths`."""
        try:
            return self.prepare(self.studies.pair_inputs(self.inputs, first, second))
        except (InputError, IllegalMatchSetup) as exc:
            raise located(exc, self.studies.pair_paths, paths) from exc


@dataclass
class Played:
    """One match of a pairing as played: its outcome for side a and what each side fielded (drawn sides)."""

    outcome: int  # tally.WIN, DRAW or LOSS, for side a
    wins: tuple[bool, bool]  # whether side a, side b won
    features: tuple[dict[str, list[str]], dict[str, list[str]]] | None = None
    touched: list[bool] = field(default_factory=list)  # whether each side fielded a patched card


@dataclass(frozen=True)
class Outcomes:
    """Outcomes a headline counts: wins, draws and losses of a side, or only the draws where no side is
    the one studied (a field's sides are drawn at random, a matrix's first side is each row in turn)."""

    whose: str  # "side a", "baseline"...
    played: int
    wins: int
    draws: int
    losses: int
    sided: bool = True

    @classmethod
    def of(cls, whose: str, figures: Mapping[str, Any], *, sided: bool = True) -> Outcomes:
        wins, draws, losses = (int(figures.get(key, 0)) for key in ("wins", "draws", "losses"))
        return cls(whose, int(figures.get("played", wins + draws + losses)), wins, draws, losses, sided)

    @property
    def draw_share(self) -> float | None:
        return self.draws / self.played if self.played else None


@dataclass(frozen=True)
class Ranked:
    """A line of a headline's ranking: a member (a card, an entrant) and its figure with its interval."""

    name: str
    value: float | None
    interval: Mapping[str, float] | None = None
    url: str | None = None


@dataclass(frozen=True)
class Headline:
    """What a study measures, first in its report, on the page and on the command line alike: the figure
    with its 95% interval, the outcomes with their draws, a ranking, and what else it says in words."""

    measures: str  # what the figure is, as the report's first title
    value: float | None = None  # a rate, or a difference of rates when `difference`
    interval: Mapping[str, float] | None = None
    difference: bool = False
    outcomes: tuple[Outcomes, ...] = ()
    ranked_title: str = ""
    ranked_figure: str = ""  # what the ranking's figure is ("delta", "mean win rate")
    ranked: tuple[Ranked, ...] = ()
    ranked_difference: bool = False  # the ranking's figures are differences of rates
    note: str = ""
    warning: str = ""  # said beside the interval: its matches were effectively one game (tally.variety)


class StudyKind:
    """A kind of study. Subclasses set the class attributes and override what differs from a matchup-like
    study of independent matches (one unit, one match)."""

    name: ClassVar[str]
    label: ClassVar[str]  # as the pages name it
    description: ClassVar[str]  # one line, for the study form and the docs
    template: ClassVar[str]  # its report's partial, included by the report page
    keys: ClassVar[frozenset[str]] = frozenset()  # the request keys it reads besides the common ones
    notes: ClassVar[Mapping[str, str]] = {}  # what it reads in keys each game declares, added to their help
    form_reads: ClassVar[tuple[str, ...]] = ()  # the common form fields it reads (agents), besides its own
    game_roles: ClassVar[tuple[str, ...]] = ()  # the game's study form parts it reads (matchup, subject...)
    stops_early: ClassVar[bool] = False  # it may stop once its interval is narrow enough (until_ci_width)
    limit_factor: ClassVar[int] = 1  # it may play this many times a batch's usual bound (an army search)
    measures_cards: ClassVar[bool] = False  # it measures every card it plays: published, it feeds card pages
    speaks_of_cards: ClassVar[bool] = False  # published, its `card_words` are shown on the card pages
    has_patch: ClassVar[bool] = False  # it measured a patch, which staff may apply to the catalogue
    has_overall: ClassVar[bool] = True  # side a's win rate over every pairing says something: the report draws it
    overall_note: ClassVar[str] = " over every pairing"  # how the default headline titles that win rate
    details_note: ClassVar[str] = ""  # whose details the report shows, when not the overall figures'
    form_legend: ClassVar[str] = ""  # the title of its own part of the study form
    variant_field: ClassVar[str] = ""  # its own form field choosing a variant that reads its own inputs

    # ------------------------------------------------------------------------------ inputs

    def fields(self) -> dict[str, serializers.Field]:
        """Its own request fields that no game shapes (a new set on every call)."""
        return {}

    def takes_matchup(self, attrs: Mapping[str, Any]) -> bool:
        """Whether it reads one matchup, given as each game gives a match (its armies, its setup)."""
        return False

    def roles(self, attrs: Mapping[str, Any]) -> tuple[str, ...]:
        """The parts of a study its game gives for these inputs (`game_roles`)."""
        return self.game_roles

    def allowed_keys(self, attrs: Mapping[str, Any]) -> set[str]:
        """The request keys it reads for these inputs."""
        return set(self.keys) | ({"until_ci_width"} if self.stops_early else set())

    def validate(self, attrs: dict[str, Any]) -> None:
        """Its own checks of a request whose keys it reads (ValidationError)."""

    def stored(self, inputs: dict[str, Any], validated: Mapping[str, Any]) -> None:
        """Adjust the inputs a batch keeps of a valid request (what the request chose but did not give)."""

    def prepared_inputs(self, inputs: dict[str, Any], studies: GameStudies) -> list[str]:
        """Complete the stored inputs before planning (entrants chosen for it); the entrants' names."""
        return []

    # ------------------------------------------------------------------------------- plan

    def plan(self, request: PlanRequest) -> Study:
        """Its pairings."""
        return Study(request.game, self.name, self.pairings(request), request.per_pairing, paired=False)

    def pairings(self, request: PlanRequest) -> list[Pairing]:
        """Its pairings, each played `per_pairing` times."""
        raise NotImplementedError

    def look_units(self, inputs: Mapping[str, Any]) -> int | None:
        """Units per chunk when it may stop as soon as its answer is known (each chunk is a look at it);
        None: the usual chunks."""
        return None

    def stop_rule(self, batch: Batch) -> Callable[[Tally], bool] | None:
        """Whether a sum of its chunks already answers it (a sequential test decided), read on chunks 0..k-1
        only, so the stop is the same however chunks were spread; None: it plays its count."""
        return None

    # ------------------------------------------------------------------------------ tally

    def new_tally(self, study: Study) -> Tally:
        """An empty tally of a chunk: a leg per pairing (with groups for a pairing that draws its sides)."""
        tally: Tally = {"pairings": [new_tally() for _ in study.pairings]}
        for leg, pairing in zip(tally["pairings"], study.pairings, strict=True):
            if pairing.pool is not None:
                leg["groups"] = {}
        return tally

    def play_unit(self, study: Study, unit: int, seed: int, tally: Tally) -> None:
        """Play unit `unit` into the chunk's tally: match unit % per_pairing of pairing unit // per_pairing."""
        k, index = divmod(unit, study.per_pairing)
        play_unit_match(study, study.pairings[k], index, seed, tally["pairings"][k])

    def play_long_unit(self, study: Study, unit: int, seed: int, tally: Tally, stop_now: Callable[[], bool]) -> None:
        """Play a unit that may take minutes (an army search's island), asking `stop_now` on the way and raising
        UnitCancelled when it says so; a unit of a few matches is simply played (`play_unit`)."""
        self.play_unit(study, unit, seed, tally)

    # ---------------------------------------------------------------------------- results

    def result_fields(self) -> dict[str, serializers.Field]:
        """The keys its results add to every kind's figures, as the API answers them (a new set on every call)."""
        return {}

    def results(self, batch: Batch, total: Tally, studies: GameStudies) -> dict[str, Any]:
        """Everything measured, read off the summed tally."""
        return figures(merge_all(total["pairings"]))

    def patched_rows(self, sides: list[dict[str, Any]], patched: frozenset[str],
                     studies: GameStudies) -> list[dict[str, Any]] | None:
        """As the base of a what-if: each patched card's rows in both halves, if it reads cards' rows."""
        return None

    def replayed_pairing(self, batch: Batch, study: Study, pairing: int, match: int) -> Pairing:
        """The pairing whose match `match` a replay plays again (`match_of`): the planned one by default."""
        return study.pairings[pairing]

    def card_words(self, batch: Batch, card: str) -> str | None:
        """What a finished study of it says of `card` in a sentence, for the card's page (`speaks_of_cards`);
        None when it says nothing of it."""
        return None

    def finished(self, batch: Batch) -> None:
        """What it does once done, in the transaction that marks it so (a suggestion queues its confirmation)."""

    # ---------------------------------------------------------------------------- report

    def details_of(self, results: Mapping[str, Any]) -> Mapping[str, Any]:
        """The figures whose details (sides as given and swapped, rounds, ends) the report shows."""
        return results

    def headline(self, batch: Batch, results: Mapping[str, Any], side: str) -> Headline:
        """What it measures, first in its report: by default side a's (team 0's) win rate over every pairing
        with its wins, draws and losses."""
        return Headline(f"Win rate of {side}{self.overall_note}", results.get("win_rate"),
                        results.get("win_rate_ci"), outcomes=(Outcomes.of(side, results),),
                        warning=results.get("one_game_warning") or "")

    def compared(self, first: Batch, second: Batch) -> dict[str, Any]:
        """What a comparison of two of its finished studies of one game shows besides their headlines side by
        side (simulate.comparison)."""
        return {}

    def about(self, batch: Batch) -> str:
        """What the study is of, in a few words, for the study list (its agents by default)."""
        return f"agents {agents_text(batch.inputs.get('agents'))}"

    def sides_swapped(self, batch: Batch) -> bool:
        """Whether some of its matches were played with the two sides swapped (every second one)."""
        return batch.swap_sides

    def report(self, batch: Batch, results: Mapping[str, Any], sort: str) -> dict[str, Any]:
        """What its partial shows besides the headline and details (simulate.pages.report)."""
        return {}

    def text(self, batch: Batch, results: Mapping[str, Any], labels: Mapping[str, Mapping[int, str]],
             seats: Mapping[str, str], studies: GameStudies) -> list[str]:
        """Its figures as the command line prints them, after the overall ones (simulate.study_kinds.text)."""
        return []

    # ------------------------------------------------------------------------ the doors

    def add_arguments(self, group: _ArgumentGroup) -> None:
        """Its own flags of `manage.py simulate_batch` (each with default None)."""

    def command_inputs(self, body: dict[str, Any], arguments: Mapping[str, Any]) -> None:
        """Set its flags given on the request body."""

    def form_fields(self, pages: GamePages) -> dict[str, forms.Field]:
        """Its own fields of the study form (a new set on every call)."""
        return {}

    def form_inputs(self, data: Mapping[str, Any], body: dict[str, Any]) -> None:
        """Set its own form fields filled in on the request body."""

    def form_variants(self) -> dict[str, StudyKind]:
        """The kinds its `variant_field` chooses between, by value (what each reads, it reads)."""
        return {}

    def form_field_for(self, path: str) -> str | None:
        """Its own form field that an error of the API at `path` is about, if any."""
        return None


# ------------------------------------------------------------------------------------- planning


def located(exc: InputError | IllegalMatchSetup, sides: Mapping[str, str], paths: tuple[str, str]) -> Exception:
    """The same refusal of one pairing, its paths those of the entrants in the request: `sides` maps the
    match request's prefix of each side (e.g. `armies.a`) to its side's name, `paths` are the entrants'."""
    where = dict(zip(sides, paths, strict=True))
    if isinstance(exc, IllegalMatchSetup):
        names = dict(zip(sides.values(), paths, strict=True))
        located_ = [{**v, "at": names.get(str(v.get("side", v.get("team"))), " / ".join(paths))} for v in exc.violations]
        return IllegalMatchSetup(located_, f"{' / '.join(paths)}: {exc}")

    def moved(path: str) -> str:
        for prefix, entrant in where.items():
            if path == prefix or path.startswith(prefix + "."):
                return entrant + path[len(prefix):]
        return path

    errors = [(moved(path), reason) for path, reason in exc.errors]
    message = str(exc)
    for prefix, entrant in where.items():
        message = message.replace(prefix, entrant)
    return InputError(message, errors)


def relabelled(pairings: Sequence[Pairing], **label: Any) -> list[Pairing]:
    """The pairings with more in their labels."""
    return [replace(pairing, label={**pairing.label, **label}) for pairing in pairings]


# ------------------------------------------------------------------------------------- playing


def play_unit_match(study: Study, pairing: Pairing, index: int, seed: int, leg: Tally, *,
                    count_field: bool = True) -> Played:
    """Play match `index` of a pairing (its sides drawn when it has a pool, swapped in odd matches when it
    swaps) and count it in `leg`; what each drawn side fielded too, unless `count_field` is off (a kind that
    reports no field groups)."""
    studies = services.game_studies(study.game)
    first, second = services.game_matches(study.game).sides
    played, swapped, features = match_of(pairing, index, seed, study.game, count_field=count_field)
    result = runner.play_match(study.game, setup=played.setup, agents=played.agents, seed=seed + index,
                               options=played.options, keep_log=False)
    winner = result.winner if not swapped or result.winner is None else second if result.winner == first else first
    outcome = DRAW if winner is None else WIN if winner == first else LOSS
    share = studies.kept_share(played.setup, result, result.winner) if result.winner is not None else 0.0
    first_seat = "b" if swapped else "a"
    # Two matches are the same game when their pairing, first seat and whole result (but the log) are.
    game = fingerprint(pairing.label, first_seat, result.winner, result.reason, result.rounds, result.actions,
                       result.survivors)
    count_match(leg, outcome=outcome, first=first_seat, rounds=result.rounds, reason=result.reason, share=share,
                game=game)
    keep_sample(leg, outcome=outcome, index=index)
    if result.first is not None:  # the side as given whose player acted first
        acted = result.first if not swapped else second if result.first == first else first
        count_acted_first(leg, outcome=outcome, side="a" if acted == first else "b")
    match = Played(outcome, (winner == first, winner == second))
    if features is not None:
        if studies.plays_features:
            features = cast(PlaysFeatures, studies).played_features(features, result)
        count_drawn(studies, pairing, match, features, leg)
    return match


def match_of(pairing: Pairing, index: int, seed: int, game: str, *,
             count_field: bool = True) -> tuple[PreparedMatch, bool, Any]:
    """Match `index` of a pairing as the study plays it (with `seed + index`): its sides drawn from the match's
    own generator when the pairing has a pool, swapped in odd matches when it swaps; whether they were swapped,
    and what each drawn side fields (None for given sides, or when `count_field` is off)."""
    prepared, features = pairing.prepared, None
    if pairing.pool is not None:
        studies = services.game_studies(game)
        setup = studies.field_setup(pairing.pool, random.Random(f"field:{seed + index}"))
        features = studies.fielded(setup) if count_field else None
        # Not `replace`: it reads the class's fields on every call, and a search makes one of these a game.
        prepared = PreparedMatch(setup, prepared.agents, prepared.options, prepared.stored_setup)
    swapped = pairing.swap and index % 2 == 1
    return (services.game_matches(game).swapped(prepared) if swapped else prepared), swapped, features


def count_drawn(studies: GameStudies, pairing: Pairing, match: Played,
                features: tuple[dict[str, list[str]], dict[str, list[str]]], leg: Tally) -> None:
    """Count what each drawn side fielded (and played) by whether it won; note which fielded a patched card."""
    match.features = features
    for side_features, won in zip(features, match.wins, strict=True):
        count_appearances(leg["groups"], side_features, won=won)
    if pairing.patched:
        match.touched = [not pairing.patched.isdisjoint(member for members in side.values() for member in members)
                         for side in features]


def pair_index(won: bool, won_after: bool) -> int:
    """Where a pair of outcomes on one seed is counted: [both won, baseline only, patched only, neither]."""
    return 0 if won and won_after else 1 if won else 2 if won_after else 3


def count_card_pairs(before: Played, after: Played, by_card: dict[str, list[int]]) -> None:
    """Pair each side fielding a patched card, card by card (a side fielding two counts for both)."""
    for side, (won, won_after) in enumerate(zip(before.wins, after.wins, strict=True)):
        fielded = {member for members in (before.features or ({}, {}))[side].values() for member in members}
        for card, pairs in by_card.items():
            if card in fielded:
                pairs[pair_index(won, won_after)] += 1


# ------------------------------------------------------------------------------------- results


def merge_all(legs: Sequence[Tally]) -> Tally:
    """The outcome counts of every leg together (their groups left out)."""
    total = new_tally()
    for leg in legs:
        merge(total, {key: value for key, value in leg.items() if key != "groups"})
    return total


# ------------------------------------------------------------------------------------- words


def agents_text(agents: Any) -> str:
    """The agents of a request as a reader names them (the game's default when none was given)."""
    if not agents:
        return "the default"
    return ", ".join(agents.values() if isinstance(agents, Mapping) else [agents] if isinstance(agents, str) else agents)


def listed(values: Sequence[Any], what: str, shown: int = 3) -> str:
    """A few values in words (`sets er-core, er-wild`), or how many there are when they are more."""
    if len(values) > shown:
        return f"{len(values)} {what}"
    return f"{what} {', '.join(str(value) for value in values)}"
