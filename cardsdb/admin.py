"""Admin for the shared catalogue: list columns, search, filters, image previews."""

from typing import TYPE_CHECKING

from django.contrib import admin
from django.core.exceptions import ObjectDoesNotExist
from django.db.models import Sum
from django.utils.html import format_html

from cardsdb import services
from cardsdb.card_uses import protected_uses
from cardsdb.models import (
    Card,
    CardSet,
    Collection,
    CollectionEntry,
    Faction,
    IssuedCardCode,
    OfficialRecord,
    Rarity,
    Release,
    UsernameForm,
)


def image_preview(image, size: int = 64) -> str:
    """An <img> tag for an admin list or form, or a dash when there is no image."""
    if not image:
        return "—"
    return format_html('<img src="{}" style="max-height:{}px;max-width:{}px" alt="">', image.url, size, size)


class RecordAdmin(admin.ModelAdmin):
    """A record of what happened, read only: no add form and no change; `deletable` says whether staff may delete
    one."""

    deletable = True

    def get_readonly_fields(self, request, obj=None):
        return [field.name for field in self.model._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return self.deletable and super().has_delete_permission(request, obj)


class CardImagePreviewMixin:
    """Thumbnail column and a larger preview on the change form, for every card admin."""

    @admin.display(description="Art")
    def thumbnail_preview(self, obj):
        return image_preview(obj.thumbnail or obj.image)

    @admin.display(description="Preview")
    def image_preview(self, obj):
        return image_preview(obj.image, size=320)


if TYPE_CHECKING:  # what ProtectedCardAdminMixin is mixed into, for the type checker
    _ModelAdmin = admin.ModelAdmin
else:
    _ModelAdmin = object


class ProtectedCardAdminMixin(_ModelAdmin):
    """A card that saved armies, saved setups or unfinished studies use cannot be deleted, as one collections
    hold cannot (PROTECT): the delete page and the delete action list each of them as keeping it, and delete
    nothing, as they do for a rarity that cards carry."""

    def get_deleted_objects(self, objs, request):
        to_delete, model_count, perms_needed, protected = super().get_deleted_objects(objs, request)
        protected = list(protected)  # collection entries are there already, as Django found them
        for card in objs:
            protected.extend(protected_uses(card, leave_out=("collections",)))
        return to_delete, model_count, perms_needed, protected


@admin.register(Rarity)
class RarityAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "order", "color"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(Faction)
class FactionAdmin(admin.ModelAdmin):
    list_display = ["icon", "name", "slug", "identity"]
    list_display_links = ["name"]
    search_fields = ["name", "identity", "description"]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(CardSet)
class CardSetAdmin(admin.ModelAdmin):
    list_display = ["code", "name", "game", "release_date"]
    list_filter = ["game", "release_date"]
    search_fields = ["code", "name"]
    date_hierarchy = "release_date"


@admin.register(Card)
class CardAdmin(ProtectedCardAdminMixin, CardImagePreviewMixin, admin.ModelAdmin):
    list_display = ["thumbnail_preview", "code", "name", "slug", "game", "card_set", "rarity", "updated_at"]
    list_display_links = ["name"]
    list_filter = ["game", "card_set", "rarity"]
    search_fields = ["code", "name", "slug", "rules_text", "flavor_text"]
    list_select_related = ["card_set", "rarity"]
    readonly_fields = ["image_preview", "created_at", "updated_at"]
    prepopulated_fields = {"slug": ["name"]}

    def get_readonly_fields(self, request, obj=None):
        # A card's game is fixed once it exists (an Echo Realms character stays one); its set must
        # belong to that game, which Card.clean() checks for this form and the API alike.
        fields = list(super().get_readonly_fields(request, obj))
        return [*fields, "game"] if obj is not None else fields


class CollectionEntryInline(admin.TabularInline):
    model = CollectionEntry
    extra = 1
    autocomplete_fields = ["card"]


@admin.register(Collection)
class CollectionAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "entry_count", "updated_at"]
    list_filter = ["owner"]
    search_fields = ["name", "owner__username"]
    list_select_related = ["owner"]
    inlines = [CollectionEntryInline]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(card_total=Sum("entries__quantity"))

    @admin.display(description="Cards", ordering="card_total")
    def entry_count(self, obj):
        return obj.card_total or 0


@admin.register(CollectionEntry)
class CollectionEntryAdmin(admin.ModelAdmin):
    list_display = ["collection", "card", "quantity"]
    list_filter = ["card__game"]
    search_fields = ["collection__name", "card__name"]
    list_select_related = ["collection", "card"]
    autocomplete_fields = ["card", "collection"]


@admin.register(IssuedCardCode)
class IssuedCardCodeAdmin(RecordAdmin):
    """Every card code ever held (read only): a code listed here is never given to another card."""

    list_display = ["code", "card", "issued_at"]
    search_fields = ["code", "card__name", "card__slug"]
    list_select_related = ["card"]

    deletable = False


@admin.register(UsernameForm)
class UsernameFormAdmin(RecordAdmin):
    """The forms accounts' names read as (read only; renaming an account updates them): a new account whose name
    reads as one of these is refused at sign-up."""

    list_display = ["user", "digest"]
    search_fields = ["user__username", "digest"]
    list_select_related = ["user"]

    deletable = False


@admin.register(OfficialRecord)
class OfficialRecordAdmin(admin.ModelAdmin):
    """The official rows as loaded (manage.py load_official / update_official). A record can be read;
    recorded again as its row stands now (the action), so that a release may replace a staff edit;
    deleted, so that its row no longer counts as official; or added for an existing row, which records
    the row as it stands now (its fingerprint is computed, never typed)."""

    list_display = ["model", "object_pk", "source", "fingerprint", "loaded_at"]
    list_filter = ["model", "source"]
    search_fields = ["model", "object_pk", "fingerprint"]
    actions = ["record_as_it_stands"]

    @admin.action(description="Record the selected rows as they stand now (a release may then update them)")
    def record_as_it_stands(self, request, queryset):
        done = 0
        for record in queryset:
            try:
                row = record.recorded_row()
            except (LookupError, ObjectDoesNotExist):
                continue
            record.fingerprint = services.fingerprint(services.row_fields(row))
            record.save(update_fields=["fingerprint", "loaded_at"])
            done += 1
        self.message_user(request, f"{done} rows recorded as they stand now.")

    def get_readonly_fields(self, request, obj=None):
        if obj is not None:
            return ["model", "object_pk", "source", "fingerprint", "loaded_at"]
        return ["fingerprint", "loaded_at"]

    def save_model(self, request, obj, form, change):
        if not change:
            obj.fingerprint = services.fingerprint(services.row_fields(obj.recorded_row()))
        super().save_model(request, obj, form, change)


@admin.register(Release)
class ReleaseAdmin(RecordAdmin):
    """Releases are made through the API, which freezes the catalogue with them: here they are read, or deleted."""

    list_display = ["name", "game", "slug", "card_count", "created_by", "created_at"]
    list_filter = ["game"]
    search_fields = ["name", "slug", "notes"]

    def get_readonly_fields(self, request, obj=None):
        return [field.name for field in self.model._meta.fields if field.name != "bulk_file"]

    def get_fields(self, request, obj=None):
        return self.get_readonly_fields(request, obj)
