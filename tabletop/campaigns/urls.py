from django.urls import path

from tabletop.campaigns import views

app_name = "campaigns"
urlpatterns = [
    path("", views.campaign_list, name="list"),
    path("new/", views.campaign_create, name="create"),
    path("join/<str:token>/", views.join, name="join"),
    path("<int:pk>/", views.campaign_detail, name="detail"),
    path("<int:pk>/settings/", views.campaign_settings, name="settings"),
    path("<int:pk>/settings/reset/", views.ruleset_reset, name="ruleset_reset"),
    path("<int:pk>/delete/", views.campaign_delete, name="delete"),
    path("<int:pk>/invites/new/", views.invite_create, name="invite_create"),
    path("<int:pk>/invites/<int:invite_pk>/revoke/", views.invite_revoke, name="invite_revoke"),
    path("<int:pk>/invites/<int:invite_pk>/email/", views.invite_email, name="invite_email"),
    path("<int:pk>/members/<int:user_pk>/remove/", views.member_remove, name="member_remove"),
]
