"""A study's matches replayed with their logs: a study keeps no logs, but a few sample matches of each
outcome (the first ones of each pairing, `tally.keep_sample`), and any of its matches plays again exactly from
its frozen plan and its seed. A replayed match is an ordinary anonymous match (readable by its id, expiring
like one), played once however often it is asked for.
"""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction

from simulate import studies
from simulate.batches import NotReplayable
from simulate.engine import runner
from simulate.engine.errors import InputError
from simulate.engine.tally import SAMPLES
from simulate.models import Batch, Match
from simulate.services import game_studies, match_row
from simulate.study_kinds import study_kind
from simulate.study_kinds.base import match_of

OUTCOMES = {"wins": "win", "draws": "draw", "losses": "loss"}  # of side a (team 0)


def samples_of(batch: Batch) -> list[dict[str, Any]]:
    """The sample matches a study kept: per pairing (in order), its first matches of each outcome for side a,
    each with its seed."""
    legs = (batch.tally.get("sum") or {}).get("pairings", [])
    labels = [pairing["label"] for pairing in batch.frozen.data["pairings"]] if batch.frozen else []
    return [{"pairing": k, "pairing_label": labels[k] if k < len(labels) else {}, "outcome": OUTCOMES[outcome],
             "match": index, "seed": batch.seed + index}
            for k, leg in enumerate(legs) for outcome, indexes in leg.get(SAMPLES, {}).items() for index in indexes]


def replay(batch: Batch, *, pairing: int, match: int) -> Match:
    """Match `match` of pairing `pairing` of a study, played again with its log from the study's frozen plan
    (the one stored before if it was replayed already). InputError for a match the study does not have."""
    if batch.frozen is None:
        raise NotReplayable("This study was stored before studies kept the cards they played: its matches "
                            "cannot be played again exactly.")
    pairings = len(batch.frozen.data["pairings"])
    if not 0 <= pairing < pairings or not 0 <= match < batch.per_pairing:
        message = (f"This study has pairings 0 to {pairings - 1} and matches 0 to {batch.per_pairing - 1} in "
                   "each.")
        raise InputError(message, [("pairing" if not 0 <= pairing < pairings else "match", message)])
    stored = Match.objects.filter(study=batch, study_pairing=pairing, study_match=match).first()
    if stored is not None:
        return stored
    study = studies.study_of(batch)
    played, _, features = match_of(study_kind(batch.kind).replayed_pairing(batch, study, pairing, match), match,
                                   batch.seed, batch.game)
    result = runner.play_match(batch.game, setup=played.setup, agents=played.agents, seed=batch.seed + match,
                               options=played.options)
    setup = game_studies(batch.game).drawn_setup(played.setup) if features is not None else played.stored_setup
    row = match_row(result, inputs={}, setup=setup, study=batch, study_pairing=pairing, study_match=match)
    try:
        with transaction.atomic():
            row.save()
    except IntegrityError:  # asked for twice at once: the other request stored it
        return Match.objects.get(study=batch, study_pairing=pairing, study_match=match)
    return row
