from django.apps import AppConfig


class CharactersConfig(AppConfig):
    name = "tabletop.characters"
    label = "characters"
