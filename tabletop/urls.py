from django.contrib import admin
from django.urls import include, path

from tabletop.accounts import views as account_views
from tabletop.scenes import dice_reference

urlpatterns = [
    path("", account_views.home, name="home"),
    path("accounts/signup/", account_views.signup, name="signup"),
    # Django's own views, behind the door's limits (tabletop/accounts)
    path(
        "accounts/password_reset/",
        account_views.PasswordResetView.as_view(),
        name="password_reset",
    ),
    path(
        "accounts/password_change/",
        account_views.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path("accounts/me/", account_views.account, name="account"),
    path("accounts/me/email/", account_views.email_change, name="account_email"),
    path("accounts/me/table/", account_views.table_preferences_change, name="account_table"),
    path(
        "accounts/me/sessions/<int:session_id>/end/",
        account_views.session_end,
        name="account_session_end",
    ),
    path(
        "accounts/me/sessions/end/", account_views.sessions_end_others, name="account_sessions_end"
    ),
    path("accounts/me/download/", account_views.account_download, name="account_download"),
    path("accounts/me/delete/", account_views.account_delete, name="account_delete"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("campaigns/", include("tabletop.campaigns.urls")),
    path("campaigns/", include("tabletop.discord.urls")),
    path("characters/", include("tabletop.characters.urls")),
    path("scenes/", include("tabletop.scenes.urls")),
    path("stats/", include("tabletop.stats.urls")),
    path("notifications/", include("tabletop.notify.urls")),
    path("dice/", dice_reference.dice_reference, name="dice_reference"),
    path("dice/roll/", dice_reference.dice_reference_roll, name="dice_reference_roll"),
    path("admin/", admin.site.urls),
]
