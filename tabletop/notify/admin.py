from django.contrib import admin

from tabletop.notify.models import MailChoice, Notification, ReadMark


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    list_display = ("user", "campaign", "scene", "seq", "why", "seen", "mail", "created_at")
    list_filter = ("why", "mail", "seen")

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(ReadMark)
class ReadMarkAdmin(admin.ModelAdmin):
    list_display = ("user", "scene", "seq", "visible_at")


@admin.register(MailChoice)
class MailChoiceAdmin(admin.ModelAdmin):
    list_display = ("user", "campaign", "level")
