from django.urls import path

from tabletop.characters import views

app_name = "characters"
urlpatterns = [
    path("new/<int:campaign_pk>/", views.create, name="create"),
    path("<int:pk>/", views.detail, name="detail"),
    path("<int:pk>/edit/", views.edit, name="edit"),
    path("<int:pk>/delete/", views.delete, name="delete"),
    path("<int:pk>/adjust/", views.adjust, name="adjust"),
]
