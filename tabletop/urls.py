from django.contrib import admin
from django.urls import include, path

from tabletop.accounts import views as account_views

urlpatterns = [
    path("", account_views.home, name="home"),
    path("accounts/signup/", account_views.signup, name="signup"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("campaigns/", include("tabletop.campaigns.urls")),
    path("characters/", include("tabletop.characters.urls")),
    path("scenes/", include("tabletop.scenes.urls")),
    path("stats/", include("tabletop.stats.urls")),
    path("admin/", admin.site.urls),
]
