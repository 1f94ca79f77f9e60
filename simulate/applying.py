"""A what-if's patch made real: staff apply the patch a finished what-if measured to the catalogue, each
patched card a new version in its history, all of them or none; and undo it the same way.

A patch holds absolute values, measured against the cards the what-if froze. A card edited since then is not
overwritten: the patch is refused, naming it, and the designer runs the what-if again on the card as it is.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from cardsdb.card_history import apply_edit, latest_version, model_label, restore_version
from cardsdb.errors import DomainError
from simulate.models import Batch
from simulate.services import game_studies
from simulate.study_kinds import study_kind


class NotApplicable(DomainError):
    """A study whose patch cannot be applied as it stands (answered 409)."""

    status = 409
    code = "not_applicable"


def apply_patch(batch: Batch, *, user: Any) -> list[dict[str, Any]]:
    """Apply a finished what-if's patch to the catalogue, in one transaction: each card's new version
    (`{model, slug, version}`). NotApplicable for another kind, an unfinished study, or a card deleted or
    edited since the what-if froze it; a change the card's rules refuse raises ValidationError."""
    if not study_kind(batch.kind).has_patch or not batch.inputs.get("patch"):
        raise NotApplicable("Only a what-if (or a targets check) has a patch to apply.")
    if batch.status != Batch.Status.DONE:
        raise NotApplicable(f"The what-if is {batch.status}: apply its patch once it has measured it.")
    played = (batch.catalogue or {}).get("versions", {})
    if not played:
        raise NotApplicable("This what-if was stored before studies kept the cards they played: which version of "
                            "each card it measured is not known. Run it again, then apply its patch.")
    applied = []
    with transaction.atomic():
        for model, slug, changes in game_studies(batch.game).patch_edits(batch.inputs.get("patch") or []):
            card = model._default_manager.select_for_update().filter(slug=slug).first()
            label = model_label(model)
            measured = played.get(label, {}).get(slug)
            if card is None or latest_version(card).history_id != measured:
                what = "was deleted" if card is None else "was edited"
                raise NotApplicable(f"{slug} {what} since the what-if measured it: its patch would overwrite that "
                                    "edit. Run the what-if again on the card as it is now.")
            version = apply_edit(card, changes, reason=applied_reason(batch), user=user)
            applied.append({"model": label, "slug": slug, "version": version.history_id})
    return applied


def applied_reason(batch: Batch) -> str:
    """The reason a card's version applied from this study carries in its history."""
    return f"Applied from what-if {batch.pk}"


def undo_patch(batch: Batch, *, user: Any) -> list[dict[str, Any]]:
    """Undo a what-if's applied patch, in one transaction: each patched card put back as it was just before,
    a new version ("Undone: what-if ..."), answering `{model, slug, version}` of each. NotApplicable when a
    card's latest version is not the one this study applied (never applied, undone already, or edited since:
    undoing would overwrite that edit)."""
    if not study_kind(batch.kind).has_patch or not batch.inputs.get("patch"):
        raise NotApplicable("Only a what-if (or a targets check) has a patch to undo.")
    undone = []
    with transaction.atomic():
        for model, slug, _ in game_studies(batch.game).patch_edits(batch.inputs.get("patch") or []):
            card = model._default_manager.select_for_update().filter(slug=slug).first()
            latest = None if card is None else latest_version(card)
            if card is None or latest is None or latest.history_change_reason != applied_reason(batch):
                raise NotApplicable(f"{slug} is not as this what-if's patch left it (never applied, undone already, "
                                    "deleted or edited since): undoing would overwrite what changed. Nothing was "
                                    "undone.")
            before = latest.prev_record
            if before is None:
                raise NotApplicable(f"{slug} has no version before the patch to go back to.")
            version = restore_version(card, before.history_id, user=user, reason=f"Undone: what-if {batch.pk}")
            undone.append({"model": model_label(model), "slug": slug, "version": version.history_id})
    return undone
