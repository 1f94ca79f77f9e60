"""Admin for stored matches and studies (read-only: each is a record of what happened)."""

from django.contrib import admin

from cardsdb.admin import RecordAdmin
from simulate.models import Batch, BatchChunk, ChunkClaim, FrozenPlan, Match, SeatedGame, StudyClient


@admin.register(Match)
class MatchAdmin(RecordAdmin):
    list_display = ["id", "game", "winner", "reason", "rounds", "owner", "seed", "created_at"]
    list_filter = ["game", "winner", "reason"]
    search_fields = ["id", "owner__username", "reason"]
    list_select_related = ["owner"]
    date_hierarchy = "created_at"

    def get_queryset(self, request):
        return super().get_queryset(request).defer("log")


@admin.register(Batch)
class BatchAdmin(RecordAdmin):
    list_display = ["id", "game", "kind", "status", "played", "count", "owner", "published_at", "created_at",
                    "finished_at"]
    list_filter = ["game", "kind", "status", ("published_at", admin.EmptyFieldListFilter)]
    search_fields = ["id", "owner__username"]
    list_select_related = ["owner"]


@admin.register(FrozenPlan)
class FrozenPlanAdmin(RecordAdmin):
    """What studies play, frozen when they were created (their cards as plain data), read-only."""

    list_display = ["digest", "game", "created_at"]
    list_filter = ["game"]
    search_fields = ["digest"]

    def get_queryset(self, request):
        return super().get_queryset(request).defer("data")


@admin.register(BatchChunk)
class BatchChunkAdmin(RecordAdmin):
    """The stored chunks of batches: their counts as played, read-only."""

    list_display = ["batch", "index", "start", "stop", "played", "runner", "created_at"]
    search_fields = ["batch__id", "runner"]
    list_select_related = ["batch"]


@admin.register(StudyClient)
class StudyClientAdmin(RecordAdmin):
    """The accounts and addresses that queued studies (what their bound counts against), read-only."""

    list_display = ["key", "served_at", "created_at"]
    search_fields = ["key"]


@admin.register(ChunkClaim)
class ChunkClaimAdmin(RecordAdmin):
    """The chunks handed out to runners and not stored yet, read-only."""

    list_display = ["batch", "index", "runner", "task", "claimed_at"]
    search_fields = ["batch__id", "runner", "task"]
    list_select_related = ["batch"]


@admin.register(SeatedGame)
class SeatedGameAdmin(RecordAdmin):
    """Games with people at some seats: their seats, moves and status, read-only (a seat's secret is kept only as
    a hash)."""

    list_display = ["id", "game", "status", "turn", "version", "owner", "last_move_at", "created_at"]
    list_filter = ["game", "status"]
    search_fields = ["id", "owner__username", "client"]
    list_select_related = ["owner"]
