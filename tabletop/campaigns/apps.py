from django.apps import AppConfig


class CampaignsConfig(AppConfig):
    name = "tabletop.campaigns"
    label = "campaigns"
