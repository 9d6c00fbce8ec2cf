from django.urls import path

from tabletop.discord import views

app_name = "discord"
urlpatterns = [
    path("<int:pk>/discord/", views.mirror_save, name="save"),
    path("<int:pk>/discord/test/", views.mirror_test, name="test"),
    path("<int:pk>/discord/off/", views.mirror_off, name="off"),
    path("<int:pk>/discord/status/", views.mirror_status, name="status"),
]
