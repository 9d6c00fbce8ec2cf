"""Websocket URL routes (each app that speaks over a socket adds its route here)."""

websocket_urlpatterns: list = []
