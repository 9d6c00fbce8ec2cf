from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "tabletop.accounts"
    label = "accounts"
