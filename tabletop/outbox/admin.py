from django.contrib import admin

from tabletop.outbox.models import Outgoing


@admin.register(Outgoing)
class OutgoingAdmin(admin.ModelAdmin):
    """The outbox: what waits, what was sent, what failed and why (sent by the sender only)."""

    list_display = ("channel", "address", "subject", "created_at", "attempts", "sent_at")
    list_filter = ("channel",)
    readonly_fields = ("last_error",)

    def has_change_permission(self, request, obj=None) -> bool:
        return False
