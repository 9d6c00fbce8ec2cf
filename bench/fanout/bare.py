"""The ceiling: a bare Channels consumer that only re-broadcasts each message to its group.

No authentication, no database, no rendering: what daphne + Channels + the channel layer cost on
their own. Served by daphne exactly like the app (``bench.fanout.bare:application``).

The page's two control commands are answered as the least a server must do for them, never
relayed: ``ping`` gets its ``pong`` on the socket it came from, ``hello`` nothing (the relay keeps
no history to catch up from). The idle cell of ``make bench-ratio`` sends the same pinging sockets
to both stacks; relaying a ping to the table would make the bare stack pay the very group send
the cell measures, and leaving it unanswered would skip the reply every page needs for its round
trip, so the bare figure is what an idle page's traffic costs the stack alone.
"""

import json
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
        if text_data and text_data.startswith("{"):  # a control command (rolls are HTML here)
            command = json.loads(text_data)
            if command.get("command") == "ping":
                await self.send(text_data=json.dumps({"type": "pong", "t": command.get("t")}))
            return
        await self.channel_layer.group_send(self.group, {"type": "relay", "text": text_data})

    async def relay(self, message: dict) -> None:
        await self.send(text_data=message["text"])


application = ProtocolTypeRouter(
    {"websocket": URLRouter([path("ws/bare/<int:scene_id>/", RelayConsumer.as_asgi())])}
)
