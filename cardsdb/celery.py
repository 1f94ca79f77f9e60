"""Celery application. Without a broker nothing is sent: batches run on the service's own thread.

With one, start the workers and, once for the whole service, beat (the periodic tasks below):

    .venv/bin/celery -A cardsdb worker -l info
    .venv/bin/celery -A cardsdb beat -l info      # or a single worker with -B
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardsdb.settings")

app = Celery("cardsdb")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

app.conf.beat_schedule = {
    # Anonymous matches and batches past SIMULATE_ANONYMOUS_EXPIRY_DAYS (7 by default) are deleted.
    "simulate-cleanup": {"task": "simulate.cleanup_simulations", "schedule": 60 * 60},
    # Batches whose runner died (a worker killed mid-batch) are queued again from their saved progress.
    "simulate-resume-batches": {"task": "simulate.resume_batches", "schedule": 60},
}
