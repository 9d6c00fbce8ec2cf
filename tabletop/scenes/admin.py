from django.contrib import admin

from tabletop.scenes.models import Presence, ReaderCursor, Scene, SceneEvent


@admin.register(Scene)
class SceneAdmin(admin.ModelAdmin):
    list_display = ("name", "campaign", "status", "last_seq", "created_at")
    list_filter = ("status", "campaign__system")
    search_fields = ("name", "campaign__name")
    readonly_fields = ("last_seq",)


@admin.register(SceneEvent)
class SceneEventAdmin(admin.ModelAdmin):
    """The log is append-only history: viewable, never edited (commitments must keep matching)."""

    list_display = ("scene", "seq", "kind", "actor", "audience", "revealed_at", "created_at")
    list_filter = ("kind", "audience")
    search_fields = ("scene__name", "actor__username")

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(Presence)
class PresenceAdmin(admin.ModelAdmin):
    list_display = ("user", "scene", "last_seen")


@admin.register(ReaderCursor)
class ReaderCursorAdmin(admin.ModelAdmin):
    """Where each durable reader stands (moved only by its reader)."""

    list_display = ("reader", "scene", "user", "seq", "moved_at")
    list_filter = ("reader",)

    def has_change_permission(self, request, obj=None) -> bool:
        return False
