"""Heals (ruling L9 step 1, and heal_marker protectors at round start): each pending heal in turn, a
decision of its healer when several markers qualify, otherwise carried out at once."""

from __future__ import annotations

from legends.engine.showdown import Placement, apply_heal, heal_options, healing_cards
from legends.engine.table import HEAL_STAGE, HealTask, Table
from legends.engine.vocabulary import VIA_CARD, VIA_PROTECTOR


def queue_round_start_heals(table: Table) -> None:
    """The heals of the teams' protectors at round start (heal_marker), team 0 first."""
    table.heal_queue = [
        HealTask(team, effect.element, VIA_PROTECTOR, None)
        for team, effect in enumerate(table.effects)
        for _ in range(effect.handler.round_start_heals(effect))
    ]


def queue_healing_cards(table: Table) -> None:
    """The showdown's healing cards, in turn order (step 1)."""
    table.heal_queue = [HealTask(p.team, p.element, VIA_CARD, p) for p in healing_cards(table.plays)]


def next_heal(table: Table) -> bool:
    """Carry out the pending heals until one needs a choice (True: the healer decides now) or none is left."""
    while table.heal_queue:
        task = table.heal_queue[0]
        options = heal_options(table.defenses[task.team], task.element)
        if len(options) > 1:
            table.stage = HEAL_STAGE
            table.heal_choices = options
            table.legal = None
            return True
        table.heal_queue.pop(0)
        heal(table, task, options[0] if options else None, "auto")
    table.heal_choices = []
    return False


def heal(table: Table, task: HealTask, choice: Placement | None, chosen_by: str) -> None:
    """Remove the chosen marker (none when nothing qualified), logged with its source."""
    if choice is not None:
        apply_heal(table.defenses[task.team], choice[0], choice[1])
    if table.record is None:
        return
    play = task.play
    player: str | None
    seq: int | None
    if play is not None:
        source, player, seq = play.card.slug, play.pid, play.seq
    else:
        source, seq = table.protectors[task.team].slug, None
        player = table.healer(task).pid if chosen_by == "agent" else None
    table.record(("heal", table.round, task.team, task.via, source, player, seq,
                  choice[1] if choice else task.element, choice[0] if choice else None, choice is not None,
                  chosen_by, table.public))
