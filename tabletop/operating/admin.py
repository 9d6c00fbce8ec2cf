from django.contrib import admin
from django.template.defaultfilters import filesizeformat

from tabletop.operating.models import BackupMade, ServingProcess


@admin.register(BackupMade)
class BackupMadeAdmin(admin.ModelAdmin):
    """The backups made, newest first: the first line is the last backup's time and size."""

    list_display = ("made_at", "size", "reason", "rows", "pause_ms", "path")
    list_filter = ("reason",)
    readonly_fields = ("made_at", "path", "size_bytes", "reason", "rows", "pause_ms")

    @admin.display(description="size", ordering="size_bytes")
    def size(self, obj: BackupMade) -> str:
        return filesizeformat(obj.size_bytes)

    def has_add_permission(self, request) -> bool:
        return False  # made by `manage.py backup`, never typed in

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(ServingProcess)
class ServingProcessAdmin(admin.ModelAdmin):
    list_display = ("host", "pid", "started_at", "last_seen")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
