"""Celery tasks: batches of matches run on a worker (or in-process when no broker is set)."""

from celery import shared_task

from simulate import services


@shared_task(name="simulate.run_batch")
def run_batch(batch_id: str) -> str:
    """Play a stored batch to the end; its progress and summary are saved on the Batch row."""
    batch = services.run_batch(batch_id=batch_id)
    return batch.status
