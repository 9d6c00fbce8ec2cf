from django.urls import path

from tabletop.characters import views

app_name = "characters"
urlpatterns = [
    path("new/<int:campaign_pk>/", views.create, name="create"),
    path("<int:pk>/", views.detail, name="detail"),
    path("<int:pk>/edit/", views.edit, name="edit"),
    path("<int:pk>/delete/", views.delete, name="delete"),
    path("<int:pk>/adjust/", views.adjust, name="adjust"),
    path("<int:pk>/rolls/", views.saved_roll_add, name="saved_roll_add"),
    path("campaign/<int:campaign_pk>/rolls/", views.saved_roll_add, name="own_roll_add"),
    path("rolls/<int:roll_pk>/", views.saved_roll_change, name="saved_roll_update"),
    path(
        "rolls/<int:roll_pk>/delete/",
        views.saved_roll_change,
        {"delete": True},
        name="saved_roll_delete",
    ),
]
