"""The ceiling: a bare Channels consumer that only re-broadcasts each message to its group.

No authentication, no database, no rendering: what daphne + Channels + the channel layer cost on
their own. Served by daphne exactly like the app (``bench.fanout.bare:application``).
"""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
django.setup()

from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import path  # noqa: E402


class RelayConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.group = f"bare-{self.scope['url_route']['kwargs']['scene_id']}"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        await self.channel_layer.group_send(self.group, {"type": "relay", "text": text_data})

    async def relay(self, message: dict) -> None:
        await self.send(text_data=message["text"])


application = ProtocolTypeRouter(
    {"websocket": URLRouter([path("ws/bare/<int:scene_id>/", RelayConsumer.as_asgi())])}
)
