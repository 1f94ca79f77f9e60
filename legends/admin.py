"""Admin for the Akin Legends catalogue; model validation (L2, effect specs, setups) applies here too."""

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html
from simple_history.admin import SimpleHistoryAdmin

from cardsdb.admin import CardImagePreviewMixin, ProtectedCardAdminMixin
from legends.models import DefenseCard, Element, Protector, Spirit, SummoningCard, TeamSetup


@admin.register(Element)
class ElementAdmin(admin.ModelAdmin):
    list_display = ["order", "icon", "name", "slug", "color"]
    list_display_links = ["name"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}


class LegendsCardAdmin(ProtectedCardAdminMixin, CardImagePreviewMixin, SimpleHistoryAdmin):
    """Shared columns and fields of every Akin Legends card; `game` and `rarity` are fixed by the model. Its
    History button lists the card's versions and reverts to one."""

    face_route = ""
    own_fields: list[str] = []
    list_display_links = ["name"]
    search_fields = ["code", "name", "slug", "rules_text", "flavor_text"]
    list_filter = ["card_set"]
    prepopulated_fields = {"slug": ["name"]}
    readonly_fields = ["rules_text", "card_face_preview", "image_preview", "created_at", "updated_at"]

    def get_fieldsets(self, request, obj=None):
        return [
            (None, {"fields": ["name", "slug", "card_set", "code", *self.own_fields, "rules_text"]}),
            ("Art", {"fields": ["image", "image_preview", "card_face_preview", "flavor_text"]}),
            ("History", {"fields": ["created_at", "updated_at"]}),
        ]

    @admin.display(description="Card face")
    def card_face_preview(self, obj):
        if not obj.pk:
            return "—"
        url = reverse(self.face_route, kwargs={"slug": obj.slug})
        return format_html('<img src="{}" style="max-height:420px" alt="">', url)


@admin.register(Spirit)
class SpiritAdmin(LegendsCardAdmin):
    face_route = "legends-spirit-card-face"
    own_fields = ["color"]
    list_display = ["thumbnail_preview", "code", "name", "slug", "color", "card_set"]
    readonly_fields = ["card_face_preview", "image_preview", "created_at", "updated_at"]


@admin.register(Protector)
class ProtectorAdmin(LegendsCardAdmin):
    face_route = "legends-protector-card-face"
    own_fields = ["effect", "duel_legal"]
    list_display = ["thumbnail_preview", "code", "name", "effect_kind", "duel_legal", "rules_text"]
    list_filter = ["duel_legal", "card_set"]

    @admin.display(description="Effect kind")
    def effect_kind(self, obj):
        return obj.effect.get("kind", "?") if isinstance(obj.effect, dict) else "?"


@admin.register(DefenseCard)
class DefenseCardAdmin(LegendsCardAdmin):
    face_route = "legends-defense-card-face"
    own_fields = ["element_1", "element_2"]
    list_display = ["thumbnail_preview", "code", "name", "element_1", "element_2", "card_set"]
    list_filter = ["element_1", "element_2", "card_set"]
    list_select_related = ["element_1", "element_2", "card_set"]


@admin.register(SummoningCard)
class SummoningCardAdmin(LegendsCardAdmin):
    face_route = "legends-summoning-card-card-face"
    own_fields = ["attack_1", "attack_2", "effect_kind", "effect_element", "copies"]
    list_display = [
        "thumbnail_preview", "code", "name", "attack_1", "attack_2", "effect_kind", "effect_element", "copies",
    ]
    list_filter = ["effect_kind", "effect_element", "attack_1", "attack_2", "card_set"]
    list_select_related = ["attack_1", "attack_2", "effect_element"]


@admin.register(TeamSetup)
class TeamSetupAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "mode", "updated_at"]
    list_filter = ["mode"]
    search_fields = ["name", "owner__username"]
    list_select_related = ["owner"]
    raw_id_fields = ["owner"]
