from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest

from tabletop.campaigns.models import Campaign, Invite, Membership


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]
    readonly_fields = ["joined_at"]


class InviteInline(admin.TabularInline):
    model = Invite
    extra = 0
    fields = ["token", "created_by", "created_at", "revoked_at"]
    readonly_fields = ["token", "created_by", "created_at"]


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ["name", "system", "gm", "member_count", "created_at"]
    list_filter = ["system", "created_at"]
    search_fields = ["name", "description", "gm__username"]
    autocomplete_fields = ["gm"]
    readonly_fields = ["created_at"]
    inlines = [MembershipInline, InviteInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Campaign]:
        queryset = super().get_queryset(request).select_related("gm")
        return queryset.annotate(member_total=Count("memberships"))

    @admin.display(description="members", ordering="member_total")
    def member_count(self, campaign: Campaign) -> int:
        return campaign.member_total


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "campaign", "role", "joined_at"]
    list_filter = ["role", "campaign__system"]
    search_fields = ["user__username", "campaign__name"]
    autocomplete_fields = ["user", "campaign"]
    list_select_related = ["user", "campaign"]


@admin.register(Invite)
class InviteAdmin(admin.ModelAdmin):
    list_display = ["campaign", "token", "created_by", "created_at", "revoked_at"]
    list_filter = ["revoked_at", "created_at"]
    search_fields = ["campaign__name", "token", "created_by__username"]
    autocomplete_fields = ["campaign", "created_by"]
    list_select_related = ["campaign", "created_by"]
