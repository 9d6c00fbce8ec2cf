from django.urls import path

from tabletop.stats import views

app_name = "stats"
urlpatterns = [
    path("campaigns/<int:pk>/", views.campaign_stats, name="campaign"),
    path("scenes/<int:pk>/", views.scene_stats, name="scene"),
]
