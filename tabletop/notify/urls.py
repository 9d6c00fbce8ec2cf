from django.urls import path

from tabletop.notify import views

app_name = "notify"
urlpatterns = [
    path("", views.notifications, name="list"),
    path("seen/<int:scene_pk>/", views.seen, name="seen"),
    path("campaign/<int:campaign_pk>/", views.campaign_mail, name="campaign"),
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
]
