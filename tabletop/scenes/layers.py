"""The Redis channel layers, steady through a Redis outage: sockets stay open and are told
what happens from the database, instead of every socket closing (1011) and every reconnect
failing until Redis returns.

The core layer's ``receive`` raised on a lost connection, which ended each consumer; here it
waits for Redis (one probe a second for the whole process, ``outage.layer``) and goes on. The
pub/sub layer subscribed a new socket's channel before the socket could open; here a socket
opens while Redis is down, and joins its groups when it returns (``beats``).
"""

from __future__ import annotations

import asyncio
import uuid

from channels_redis.core import RedisChannelLayer
from channels_redis.pubsub import RedisPubSubChannelLayer
from redis.exceptions import RedisError

from tabletop.scenes import outage

#: How often a receiver looks again while the layer is down (one of them probes Redis).
WAIT_SECONDS = 0.25
_LOST = (RedisError, OSError, asyncio.TimeoutError)


class SteadyRedisChannelLayer(RedisChannelLayer):
    async def receive(self, channel: str) -> dict:
        while True:
            if not outage.layer.worth_trying():
                await asyncio.sleep(WAIT_SECONDS)
                continue
            try:
                message = await super().receive(channel)
            except _LOST as exc:
                outage.layer.failed(exc)
                continue
            outage.layer.answered()
            return message


class SteadyRedisPubSubChannelLayer(RedisPubSubChannelLayer):
    async def new_channel(self, prefix: str = "specific.") -> str:
        # As the library names and subscribes a socket's channel, but a socket still opens
        # while Redis is down: its queue is in place before the subscription, and the scene's
        # messages reach it through its groups, joined again when Redis returns.
        layer = self._get_layer()
        channel = f"{layer.prefix}{prefix}{uuid.uuid4().hex}"
        try:
            await layer._subscribe_to_channel(channel)
        except _LOST as exc:
            outage.layer.failed(exc)
        return channel
