"""Admin for the Echo Realms catalogue; model validation (R3, ability specs) applies here too, and the
ability texts are generated from the specs (`Character.generate_ability_texts`). A character's History
button lists its versions and reverts to one (django-simple-history)."""

from django.contrib import admin
from django.utils.html import format_html
from simple_history.admin import SimpleHistoryAdmin

from cardsdb.admin import CardImagePreviewMixin, ProtectedCardAdminMixin
from realms.models import GENERATED_TEXT_HELP, Army, Character, Race


@admin.register(Race)
class RaceAdmin(admin.ModelAdmin):
    list_display = ["name", "slug"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(Character)
class CharacterAdmin(ProtectedCardAdminMixin, CardImagePreviewMixin, SimpleHistoryAdmin):
    list_display = [
        "thumbnail_preview", "code", "name", "character_class", "faction", "rarity", "position",
        "attack", "defense", "speed", "health", "cooldown",
    ]
    list_display_links = ["name"]
    list_filter = ["faction", "character_class", "rarity", "position", "race", "card_set"]
    search_fields = ["code", "name", "slug", "rules_text", "flavor_text"]
    list_select_related = ["faction", "rarity", "race"]
    prepopulated_fields = {"slug": ["name"]}
    readonly_fields = ["card_face_preview", "image_preview", "rules_text", "created_at", "updated_at"]
    fieldsets = [
        (None, {"fields": ["name", "slug", "card_set", "code", "rarity", "race", "character_class", "faction", "position"]}),
        ("Stats", {"fields": [("attack", "defense", "speed", "health", "cooldown")]}),
        ("Abilities (spec: docs/abilities.md)", {"fields": ["faction_ability", "main_ability", "rules_text"]}),
        ("Art", {"fields": ["image", "image_preview", "card_face_preview", "flavor_text"]}),
        ("History", {"fields": ["created_at", "updated_at"]}),
    ]

    def get_form(self, request, obj=None, change=False, **kwargs):
        # The texts of both abilities are generated from their specs when the card is saved.
        kwargs["help_texts"] = {
            "faction_ability": f"Faction ability spec (docs/abilities.md). {GENERATED_TEXT_HELP}",
            "main_ability": f"Main ability spec (docs/abilities.md). {GENERATED_TEXT_HELP}",
            **kwargs.get("help_texts", {}),
        }
        return super().get_form(request, obj, change=change, **kwargs)

    @admin.display(description="Card face")
    def card_face_preview(self, obj):
        if not obj.pk:
            return "—"
        return format_html('<img src="/api/realms/characters/{}/card.png" style="max-height:420px" alt="">', obj.slug)


@admin.register(Army)
class ArmyAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "collection", "updated_at"]
    list_filter = ["owner"]
    search_fields = ["name", "owner__username"]
    list_select_related = ["owner", "collection"]
    autocomplete_fields = ["collection"]
