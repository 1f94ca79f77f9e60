"""Celery tasks: batches played on the workers, batches resumed, expired anonymous simulations deleted.

Without a broker none of these is sent: batches run on the service's own thread (simulate.background)
and `manage.py cleanup_simulations` deletes what expired. Beat's schedule is in cardsdb/celery.py.
"""

from celery import shared_task
from celery.signals import worker_ready

from simulate import services


# Late acknowledgement: the message of a worker killed mid-batch is delivered again, and the batch resumes
# from its saved progress (a runner that still holds it makes the second delivery a no-op).
@shared_task(name="simulate.run_batch", acks_late=True, reject_on_worker_lost=True)
def run_batch(batch_id: str) -> str:
    """Play a stored batch to the end; its progress and summary are saved on the Batch row."""
    batch = services.run_batch(batch_id=batch_id)
    return batch.status if batch is not None else "gone"


@shared_task(name="simulate.resume_batches")
def resume_batches() -> int:
    """Queue again the batches no live runner holds; how many."""
    batch_ids = services.requeue_stale_batches(queued_for=services.BROKER_QUEUED_FOR)
    for batch_id in batch_ids:
        run_batch.delay(str(batch_id))
    return len(batch_ids)


@shared_task(name="simulate.cleanup_simulations")
def cleanup_simulations() -> dict[str, int]:
    """Delete the anonymous matches and batches past their expiry; how many of each."""
    return services.delete_expired_simulations()


@worker_ready.connect
def resume_on_worker_start(sender=None, **kwargs) -> None:
    """A worker that starts (after a restart, say) asks for the batches nobody plays any more."""
    resume_batches.delay()
