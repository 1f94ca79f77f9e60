"""Celery tasks: chunks of batches played on the workers, batches resumed, expired anonymous simulations
deleted.

Without a broker none of these is sent: batches run on the service's own thread (simulate.background)
and `manage.py cleanup_simulations` deletes what expired. Beat's schedule is in cardsdb/celery.py.
"""

from celery import shared_task
from celery.signals import worker_ready

from simulate import batches, services, studies
from simulate.models import Batch


# Late acknowledgement: the message of a worker killed mid-chunk is delivered again (by Redis once the
# visibility timeout passes), and a chunk already stored is not counted twice (studies.store_chunk).
@shared_task(name="simulate.run_chunk", acks_late=True, reject_on_worker_lost=True)
def run_chunk(batch_id: str, index: int) -> bool:
    """Play one chunk of a stored batch and add its counts to the batch; False when there was nothing to do."""
    return batches.run_chunk(batch_id, index, runner_name=services.new_runner_name())


def send_pending_chunks(batch_id) -> int:
    """A task for every chunk of the batch not stored yet; how many."""
    batch = Batch.objects.filter(pk=batch_id).first()
    pending = studies.pending_chunks(batch) if batch is not None else []
    for index in pending:
        run_chunk.delay(str(batch_id), index)
    return len(pending)


@shared_task(name="simulate.resume_batches")
def resume_batches() -> int:
    """Send again the missing chunks of the batches nothing was stored for in a long while; how many batches."""
    batch_ids = batches.requeue_stale_batches(queued_for=batches.BROKER_QUEUED_FOR)
    for batch_id in batch_ids:
        send_pending_chunks(batch_id)
    return len(batch_ids)


@shared_task(name="simulate.cleanup_simulations")
def cleanup_simulations() -> dict[str, int]:
    """Delete the anonymous matches and batches past their expiry; how many of each."""
    return services.delete_expired_simulations()


@worker_ready.connect
def resume_on_worker_start(sender=None, **kwargs) -> None:
    """A worker that starts (after a restart, say) asks for the batches nobody plays any more."""
    resume_batches.delay()
