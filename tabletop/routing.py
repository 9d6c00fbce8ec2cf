"""Websocket URL routes."""

from django.urls import path

from tabletop.scenes.consumers import SceneConsumer

websocket_urlpatterns = [
    path("ws/scenes/<int:scene_id>/", SceneConsumer.as_asgi()),
]
