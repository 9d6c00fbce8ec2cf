from django.contrib import admin

from tabletop.characters.models import Character, SavedRoll


@admin.register(Character)
class CharacterAdmin(admin.ModelAdmin):
    list_display = ("name", "campaign", "owner", "role", "updated_at")
    list_filter = ("campaign__system", "role")
    search_fields = ("name", "campaign__name", "owner__username")
    list_select_related = ("campaign", "owner")
    raw_id_fields = ("campaign", "owner")
    readonly_fields = ("created_at", "updated_at")

    def has_add_permission(self, request) -> bool:
        # A character is made with its system's sheet row, by the app (character_create).
        return False


@admin.register(SavedRoll)
class SavedRollAdmin(admin.ModelAdmin):
    list_display = ("name", "expression", "character", "owner", "campaign")
    search_fields = ("name", "character__name", "owner__username", "campaign__name")
    list_select_related = ("campaign", "owner", "character")
    raw_id_fields = ("campaign", "owner", "character")
