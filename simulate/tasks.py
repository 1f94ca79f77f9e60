"""Celery tasks: chunks of batches played on the workers, batches resumed, expired anonymous simulations
deleted.

Without a broker none of these is sent: batches run on the service's own thread (simulate.background)
and `manage.py cleanup_simulations` deletes what expired. Beat's schedule is in cardsdb/celery.py.
"""

from celery import shared_task
from celery.signals import worker_ready

from simulate import batches, seating, services
from simulate.models import Batch


# Late acknowledgement: the message of a worker killed mid-chunk is delivered again (by Redis once the
# visibility timeout passes), and a chunk already stored is not counted twice (studies.store_chunk).
@shared_task(name="simulate.play_next_chunk", bind=True, acks_late=True, reject_on_worker_lost=True)
def play_next_chunk(self) -> bool:
    """Take the chunk whose turn it is when a worker runs this (the same one again when this message is
    delivered again), play it and add its counts to its batch; False when there was nothing to do. A message
    is sent for every free chunk, and each takes one: whose is decided as it runs, not as it was sent, so a
    study queued late is not played after everything sent before it."""
    runner_name = services.new_runner_name()
    chunk = batches.take_chunk(runner_name=runner_name, task=self.request.id or "")
    return chunk is not None and batches.run_chunk(*chunk, runner_name=runner_name)


@shared_task(name="simulate.run_chunk", acks_late=True, reject_on_worker_lost=True)
def run_chunk(batch_id: str, index: int) -> bool:
    """Play one given chunk of a stored batch (messages sent before chunks were handed out in turn)."""
    return batches.run_chunk(batch_id, index, runner_name=services.new_runner_name())


def send_pending_chunks(batch_id) -> int:
    """A message for every chunk of the batch neither stored nor claimed; how many."""
    batch = Batch.objects.filter(pk=batch_id, status__in=batches.UNFINISHED).first()
    free = len(batches.free_chunks(batch)) if batch is not None else 0
    for _ in range(free):
        play_next_chunk.delay()
    return free


@shared_task(name="simulate.resume_batches")
def resume_batches() -> int:
    """Hand out again the chunks of the batches nothing was taken or stored for in a long while; how many
    batches."""
    batch_ids = batches.requeue_stale_batches(queued_for=batches.BROKER_QUEUED_FOR)
    for batch_id in batch_ids:
        send_pending_chunks(batch_id)
    return len(batch_ids)


# Late acknowledgement: a game whose worker was killed mid-turn gets its message again; its agents' moves are
# stored only if the game has not moved on (seating.play_agent_turns).
@shared_task(name="simulate.play_agent_turns", acks_late=True, reject_on_worker_lost=True)
def play_agent_turns(game_id: str) -> bool:
    """The agents' turns of a game with people at some seats, up to the next person's decision."""
    return seating.play_agent_turns(game_id)


@shared_task(name="simulate.cleanup_simulations")
def cleanup_simulations() -> dict[str, int]:
    """End the games with people left idle, then delete the anonymous matches, games with people and batches past
    their expiry; how many of each."""
    return {"ended_games": seating.end_idle_games(), **services.delete_expired_simulations()}


@worker_ready.connect
def resume_on_worker_start(sender=None, **kwargs) -> None:
    """A worker that starts (after a restart, say) asks for the batches nobody plays any more."""
    resume_batches.delay()
