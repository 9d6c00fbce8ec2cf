from django.urls import path

from tabletop.scenes import views

app_name = "scenes"
urlpatterns = [
    path("campaign/<int:campaign_pk>/", views.scene_list, name="list"),
    path("<int:pk>/", views.scene_detail, name="detail"),
    path("<int:pk>/open/", views.scene_status, {"change": "open"}, name="open"),
    path("<int:pk>/close/", views.scene_status, {"change": "close"}, name="close"),
    path("<int:pk>/odds/", views.roll_odds, name="odds"),
    path("<int:pk>/earlier/", views.scene_earlier, name="earlier"),
    path("<int:pk>/ledger.json", views.scene_ledger, {"fmt": "json"}, name="ledger_json"),
    path("<int:pk>/ledger.md", views.scene_ledger, {"fmt": "md"}, name="ledger_md"),
    path("<int:pk>/ledger.html", views.scene_ledger, {"fmt": "html"}, name="ledger_html"),
]
