"""Simulated matches: their inputs, seed, result and event log."""

import uuid

from django.conf import settings
from django.db import models

from cardsdb.choices import Game
from cardsdb.models import TimestampedModel
from simulate.engine.events import compress, decompress


class Match(TimestampedModel):
    """One played match; replaying its inputs with its seed gives the identical log (G1)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    game = models.CharField(max_length=10, choices=Game.choices, db_index=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="matches"
    )
    inputs = models.JSONField(help_text="The request as given (armies or formation, agents, options).")
    setup = models.JSONField(default=dict, help_text="The armies or collections the engine started from.")
    agents = models.JSONField()
    options = models.JSONField(help_text="Options with their defaults filled in.")
    seed = models.BigIntegerField()
    # null is a draw, which the API shows as `"winner": null`, so null (not "") is the value.
    winner = models.CharField(max_length=10, null=True, blank=True)  # noqa: DJ001
    reason = models.CharField(max_length=40)
    rounds = models.PositiveIntegerField()
    actions = models.PositiveIntegerField(default=0)
    survivors = models.JSONField(default=dict)
    schema_version = models.PositiveSmallIntegerField()
    # zlib-compressed compact JSON: a few KB a match instead of ~80 KB, so thousands fit easily.
    log = models.BinaryField(editable=False, default=bytes)
    # A match of a study replayed with its log (simulate.replays): match `study_match` of pairing
    # `study_pairing`, played once however often it is asked for.
    study = models.ForeignKey("Batch", on_delete=models.CASCADE, null=True, blank=True, editable=False,
                              related_name="replays")
    study_pairing = models.PositiveIntegerField(null=True, blank=True, editable=False)
    study_match = models.PositiveIntegerField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "matches"
        # A user's matches newest first, and the anonymous ones past their expiry (owner null).
        indexes = [models.Index(fields=["owner", "created_at"], name="simulate_match_owner_idx")]
        constraints = [models.UniqueConstraint(fields=["study", "study_pairing", "study_match"],
                                               name="simulate_match_replayed_once")]

    def __str__(self) -> str:
        return f"{self.get_game_display()} match {self.id}"

    @property
    def events(self) -> list[dict]:
        """The event log, oldest first."""
        return decompress(bytes(self.log)) if self.log else []

    @events.setter
    def events(self, events: list[dict]) -> None:
        self.log = compress(events)


class StudyClient(models.Model):
    """Who queues studies: an account ("user:<id>") or an address ("address:<address>"); "" for the service's
    own (the command line). A study is stored while the rows of its client are locked, so that requests
    arriving together are counted one after another (batches.MAX_UNFINISHED); and chunks are handed out to
    the clients in turn, the one served least recently first (batches.take_chunk)."""

    key = models.CharField(max_length=100, unique=True)
    served_at = models.DateTimeField(null=True, blank=True,
                                     help_text="When a chunk of its studies was last handed out to a runner.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["key"]

    def __str__(self) -> str:
        return self.key


class FrozenPlan(models.Model):
    """What studies play, frozen when they are created (simulate.pinning): their pairings with every card as
    plain data. Studies whose plans are equal share one row; every chunk of them plays it, never the catalogue
    as it stands when the chunk runs."""

    digest = models.CharField(max_length=64, unique=True, help_text="sha256 of the plan's canonical JSON.")
    game = models.CharField(max_length=10, choices=Game.choices)
    data = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.get_game_display()} plan {self.digest[:12]}"


class Batch(TimestampedModel):
    """A study of many matches (`kind`), played in the background in chunks: chunk tasks on as many Celery
    workers as run, or a thread of the service when no broker is set. Each chunk's counts are stored once
    (BatchChunk) and added to the batch's `tally` in the same transaction; `results` are read off it."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    game = models.CharField(max_length=10, choices=Game.choices, db_index=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="batches"
    )
    # A kind of study registered in simulate.study_kinds (checked there, so that a new kind needs no migration).
    kind = models.CharField(max_length=20, default="matchup")
    client = models.CharField(max_length=100, blank=True, db_index=True, editable=False,
                              help_text="Who queued it (an account, or an address), to bound unfinished batches.")
    queued_by = models.ForeignKey(StudyClient, on_delete=models.SET_NULL, null=True, blank=True, editable=False,
                                  related_name="batches",
                                  help_text="The client whose turn its chunks take (its account, else its address).")
    inputs = models.JSONField(help_text="The request as given (setup, agents, options).")
    count = models.PositiveIntegerField(help_text="Matches to play in all (every pairing of the study).")
    seed = models.BigIntegerField(help_text="Match i is played with seed + i.")
    swap_sides = models.BooleanField(default=False, help_text="Every second match swaps the two sides.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    played = models.PositiveIntegerField(default=0)
    per_pairing = models.PositiveIntegerField(default=0, help_text="Matches of each pairing (seeds seed to seed + n - 1).")
    chunk_size = models.PositiveIntegerField(default=0, help_text="Units of play per chunk (the last may be smaller).")
    chunks = models.PositiveIntegerField(default=0, help_text="How many chunks the study is split into.")
    plan = models.JSONField(default=dict, help_text="Units of play, matches per unit, the entrants' names.")
    until_ci_width = models.FloatField(null=True, blank=True,
                                       help_text="Stop once the win rate's 95% interval is at most this wide.")
    tally = models.JSONField(default=dict, help_text="The counts of every chunk stored so far, summed.")
    results = models.JSONField(default=dict, help_text="Everything measured, read off the tally.")
    summary = models.JSONField(default=dict)
    error = models.TextField(blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    runner = models.CharField(max_length=100, blank=True, editable=False,
                              help_text="The runner its latest chunk was handed to (host, process, a random part).")
    heartbeat_at = models.DateTimeField(null=True, blank=True, editable=False,
                                        help_text="When a chunk of it was last handed out or stored; a batch quiet "
                                                  "for long is handed out again.")
    served_at = models.DateTimeField(null=True, blank=True, editable=False,
                                     help_text="When a chunk of it was last handed out (its client's batches take "
                                               "turns too).")
    # Null for studies stored before plans were frozen: those are planned again from their inputs.
    frozen = models.ForeignKey(FrozenPlan, on_delete=models.PROTECT, null=True, blank=True, editable=False,
                               related_name="batches", help_text="What it plays, frozen when it was created.")
    catalogue = models.JSONField(default=dict, blank=True, editable=False,
                                 help_text="The catalogue state it played: each card's version, and the release "
                                           "those versions are, if one is.")
    rerun_of = models.ForeignKey("self", on_delete=models.SET_NULL, null=True, blank=True, editable=False,
                                 related_name="reruns", help_text="The study it plays again.")
    published_at = models.DateTimeField(null=True, blank=True, editable=False,
                                        help_text="When staff published it: readable by everyone, and a field study "
                                                  "of the official sets feeds the cards' figures.")
    published_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                     editable=False, related_name="published_batches")

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "batches"
        constraints = [
            # Only a finished study's figures can be published.
            models.CheckConstraint(condition=models.Q(published_at__isnull=True) | models.Q(status="done"),
                                   name="simulate_batch_published_done"),
        ]
        indexes = [
            models.Index(fields=["owner", "created_at"], name="simulate_batch_owner_idx"),
            # Unfinished batches whose runner went quiet (services.requeue_stale_batches).
            models.Index(fields=["status", "updated_at"], name="simulate_batch_status_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.get_game_display()} batch {self.id} ({self.played}/{self.count})"


class ChunkClaim(models.Model):
    """A chunk handed out to a runner and not stored yet, so that no other runner takes it. A Celery task
    redelivered after its worker died finds its chunk again by its task id; a batch that stored and took
    nothing for long has its claims dropped and its chunks handed out again (batches.requeue_stale_batches)."""

    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="claims")
    index = models.PositiveIntegerField()
    runner = models.CharField(max_length=100, blank=True)
    task = models.CharField(max_length=64, blank=True, db_index=True, help_text="The Celery task it was handed to.")
    claimed_at = models.DateTimeField()

    class Meta:
        ordering = ["batch", "index"]
        constraints = [models.UniqueConstraint(fields=["batch", "index"], name="simulate_chunk_claimed_once")]

    def __str__(self) -> str:
        return f"chunk {self.index} of batch {self.batch_id}, handed to {self.runner}"


class BatchChunk(models.Model):
    """The counts of one chunk of a batch, stored once: a chunk played twice (a worker killed before it
    acknowledged its task, say) finds its row already there and adds nothing."""

    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="chunk_rows")
    index = models.PositiveIntegerField()
    start = models.PositiveIntegerField(help_text="First unit of play of the chunk.")
    stop = models.PositiveIntegerField(help_text="One past its last unit.")
    played = models.PositiveIntegerField(help_text="Matches it played.")
    tally = models.JSONField()
    runner = models.CharField(max_length=100, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["batch", "index"]
        constraints = [models.UniqueConstraint(fields=["batch", "index"], name="simulate_chunk_once")]

    def __str__(self) -> str:
        return f"chunk {self.index} of batch {self.batch_id}"


class SeatedGame(TimestampedModel):
    """A match with people at some seats, played one decision at a time (simulate.seating): its inputs, seed and
    the moves taken so far are the whole match, replayed from the seed whenever it is read. A person's seat is
    reached through its secret link, of which only a hash is kept."""

    class Status(models.TextChoices):
        PLAYING = "playing", "waiting for a person"
        THINKING = "thinking", "an agent is deciding"
        FINISHED = "finished", "finished"
        ENDED = "ended", "ended: left idle"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    game = models.CharField(max_length=10, choices=Game.choices, db_index=True)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True,
                              related_name="seated_games")
    client = models.CharField(max_length=200, db_index=True,
                              help_text="Who opened it, as its open games are counted (account and address).")
    inputs = models.JSONField(help_text="The request as given (armies or setup, options).")
    setup = models.JSONField(default=dict, help_text="The setup as a match keeps it.")
    frozen = models.JSONField(help_text="The engine setup with every card as it was when the game opened.")
    options = models.JSONField()
    seed = models.BigIntegerField()
    seats = models.JSONField(help_text="Each player's agent, or \"person\".")
    tokens = models.JSONField(default=dict, help_text="Each person's seat: the SHA-256 of its link's secret.")
    moves = models.JSONField(default=list, help_text="Every decision asked so far: [player, action].")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING, db_index=True)
    turn = models.CharField(max_length=10, blank=True, help_text="The player to decide; empty when over.")
    version = models.PositiveIntegerField(default=0, help_text="Moves applied or undone: a move names the version "
                                                               "it was chosen at.")
    last_move_at = models.DateTimeField(help_text="When it last changed: a game idle past its bound is ended.")
    match = models.OneToOneField(Match, on_delete=models.SET_NULL, null=True, blank=True, related_name="seated",
                                 help_text="The match it became once finished.")
    table = models.BooleanField(default=False, help_text="Played with physical cards at a table: its people may "
                                                         "change what stands on it between decisions.")

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["client", "status"], name="simulate_seated_open_idx")]

    def __str__(self) -> str:
        return f"{self.get_game_display()} game {self.id} ({self.status})"
