"""Where batches run: never inside a request.

With a broker (`CELERY_BROKER_URL`), every free chunk of a batch has a Celery task
(`simulate.play_next_chunk`) that takes the chunk whose turn it is when a worker runs it, so chunks spread
over every worker and one client's studies take turns with every other client's. Without one, the
`local_runner` (one daemon thread of the service process) takes chunks in turn and plays them until none is
free, so the service works standalone and its requests still answer at once.

A restart loses nothing but time. Stored chunks stay stored; a batch that took and stored nothing for the
stale time (its runner was killed, or it was queued and never started) is queued again by
`resume_stale_batches`, its claims dropped, and only its missing chunks are played: on the next simulate
request of a process (at most once a minute each), and with a broker also on Celery beat and when a worker
starts.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable

from django.db import connections

from simulate import batches

logger = logging.getLogger(__name__)

RESUME_EVERY_SECONDS = 60  # how often one process looks for batches no runner holds


class LocalRunner:
    """One daemon thread of this process playing background jobs in turn, started on first use. A job
    that fails is logged; the thread closes its database connections after each job. Being a daemon, the
    thread dies with its process: the batch it played resumes elsewhere from its saved progress."""

    def __init__(self) -> None:
        self._jobs: queue.Queue[Callable[[], object]] = queue.Queue()
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._pending = 0
        self._thread: threading.Thread | None = None

    def submit(self, job: Callable[[], object]) -> None:
        """Queue `job` for the thread (started if it is not running)."""
        with self._lock:
            self._pending += 1
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._work, name="simulate-batches", daemon=True)
                self._thread.start()
        self._jobs.put(job)

    def wait_idle(self, timeout: float) -> bool:
        """Wait until every job submitted so far is done; False if `timeout` seconds pass first."""
        deadline = time.monotonic() + timeout
        with self._idle:
            while self._pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._idle.wait(left)
        return True

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            try:
                job()
            except Exception:
                logger.exception("A background simulate job failed")
            finally:
                connections.close_all()
                with self._idle:
                    self._pending -= 1
                    self._idle.notify_all()


local_runner = LocalRunner()
_resumed_at: float | None = None
_resume_lock = threading.Lock()


uses_broker = batches.uses_broker


def queue_batch(batch_id) -> None:
    """Hand a stored batch to the background: a Celery task per free chunk with a broker; without, the local
    runner is asked to serve the queue (where the batch takes its turn)."""
    if uses_broker():
        from simulate.tasks import send_pending_chunks

        send_pending_chunks(batch_id)
    else:
        local_runner.submit(batches.serve_queue)


def queue_agent_turns(game_id) -> None:
    """Hand the agents' turns of a game with people at some seats to the background (`seating.play_agent_turns`):
    a Celery task with a broker, the local runner without. A broker that does not answer loses nothing: the game
    is handed out again when next read (`seating.lost_turn`)."""
    from simulate import seating

    if uses_broker():
        from simulate.tasks import play_agent_turns

        try:
            play_agent_turns.delay(str(game_id))
        except Exception:
            logger.exception("Game %s could not be handed to the workers; it is handed out when next read", game_id)
    else:
        local_runner.submit(lambda: seating.play_agent_turns(game_id))


def resume_stale_batches() -> int:
    """Queue again every batch no live runner holds (see batches.requeue_stale_batches); how many."""
    queued_for = batches.BROKER_QUEUED_FOR if uses_broker() else None
    batch_ids = batches.requeue_stale_batches(queued_for=queued_for)
    for batch_id in batch_ids:
        logger.info("Batch %s had no live runner; queued again from its saved progress.", batch_id)
        queue_batch(batch_id)
    return len(batch_ids)


def resume_soon() -> None:
    """Called by every simulate request: at most once every RESUME_EVERY_SECONDS per process (the first
    time right after it starts), look for batches to resume, in the background, not in the request."""
    global _resumed_at
    with _resume_lock:
        now = time.monotonic()
        if _resumed_at is not None and now - _resumed_at < RESUME_EVERY_SECONDS:
            return
        _resumed_at = now
    if uses_broker():
        from simulate.tasks import resume_batches

        try:
            resume_batches.delay()
        except Exception:  # a broker that does not answer must not fail the request; beat resumes later
            logger.exception("Could not ask the workers to resume batches")
    else:
        local_runner.submit(resume_stale_batches)
