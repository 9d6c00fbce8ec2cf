from django.contrib import admin

from tabletop.discord.models import Mirror


@admin.register(Mirror)
class MirrorAdmin(admin.ModelAdmin):
    """The campaigns' Discord mirrors, read only, without the webhook's token (a secret the
    admin shows to nobody either)."""

    list_display = ("campaign", "webhook_id", "started_at", "stopped_at", "posted_at")
    fields = ("campaign", "webhook_id", "sends", "started_at", "stopped_at", "stopped_why")
    readonly_fields = fields

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
