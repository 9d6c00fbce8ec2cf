from django.contrib import admin
from django.urls import include, path

from tabletop.accounts import views as account_views
from tabletop.scenes import dice_reference

urlpatterns = [
    path("", account_views.home, name="home"),
    path("accounts/signup/", account_views.signup, name="signup"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("campaigns/", include("tabletop.campaigns.urls")),
    path("characters/", include("tabletop.characters.urls")),
    path("scenes/", include("tabletop.scenes.urls")),
    path("stats/", include("tabletop.stats.urls")),
    path("dice/", dice_reference.dice_reference, name="dice_reference"),
    path("dice/roll/", dice_reference.dice_reference_roll, name="dice_reference_roll"),
    path("admin/", admin.site.urls),
]
