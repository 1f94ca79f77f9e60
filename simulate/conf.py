"""Settings of the simulate app, each read from Django settings, else the environment, else its default.

SIMULATE_ANONYMOUS_EXPIRY_DAYS  days an anonymous match or batch is kept (default 7); then
                                `manage.py cleanup_simulations` (hourly on Celery beat) deletes it
SIMULATE_BATCH_STALE_SECONDS    a batch whose runner saved nothing for this long (default 120) is
                                taken over by another runner, from its last saved progress
SIMULATE_PUBLISH_POINTS         a field study is published only if it measured every card within ± this
                                many points (default 5); a catalogue too small for that may relax it
"""

from __future__ import annotations

import os

from django.conf import settings

DEFAULTS = {
    "SIMULATE_ANONYMOUS_EXPIRY_DAYS": 7,
    "SIMULATE_BATCH_STALE_SECONDS": 120,
    "SIMULATE_PUBLISH_POINTS": 5,
}


def setting(name: str) -> int:
    """A positive whole number from the settings, the environment or the default above."""
    value = getattr(settings, name, None)
    if value is None:
        value = os.environ.get(name) or DEFAULTS[name]
    number = int(value)
    if number < 1:
        raise ValueError(f"{name} must be a positive whole number (got {value!r}).")
    return number
