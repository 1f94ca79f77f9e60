"""Admin for stored matches (read-only: a match is a record of what happened)."""

from django.contrib import admin

from simulate.models import Batch, BatchChunk, ChunkClaim, Match, StudyClient


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ["id", "game", "winner", "reason", "rounds", "owner", "seed", "created_at"]
    list_filter = ["game", "winner", "reason"]
    search_fields = ["id", "owner__username", "reason"]
    list_select_related = ["owner"]
    date_hierarchy = "created_at"
    readonly_fields = [f.name for f in Match._meta.fields]

    def get_queryset(self, request):
        return super().get_queryset(request).defer("log")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Batch)
class BatchAdmin(admin.ModelAdmin):
    list_display = ["id", "game", "kind", "status", "played", "count", "owner", "created_at", "finished_at"]
    list_filter = ["game", "kind", "status"]
    search_fields = ["id", "owner__username"]
    list_select_related = ["owner"]
    readonly_fields = [f.name for f in Batch._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(BatchChunk)
class BatchChunkAdmin(admin.ModelAdmin):
    """The stored chunks of batches: their counts as played, read-only."""

    list_display = ["batch", "index", "start", "stop", "played", "runner", "created_at"]
    search_fields = ["batch__id", "runner"]
    list_select_related = ["batch"]
    readonly_fields = [f.name for f in BatchChunk._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(StudyClient)
class StudyClientAdmin(admin.ModelAdmin):
    """The accounts and addresses that queued studies (what their bound counts against), read-only."""

    list_display = ["key", "served_at", "created_at"]
    search_fields = ["key"]
    readonly_fields = [f.name for f in StudyClient._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(ChunkClaim)
class ChunkClaimAdmin(admin.ModelAdmin):
    """The chunks handed out to runners and not stored yet, read-only."""

    list_display = ["batch", "index", "runner", "task", "claimed_at"]
    search_fields = ["batch__id", "runner", "task"]
    list_select_related = ["batch"]
    readonly_fields = [f.name for f in ChunkClaim._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
