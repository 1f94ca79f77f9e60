"""Celery application; tasks run in-process when no broker is configured."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardsdb.settings")

app = Celery("cardsdb")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
