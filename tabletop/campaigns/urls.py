app_name = "campaigns"
urlpatterns: list = []
