"""Settings for the fan-out benchmark's daphne processes: the app's own, isolated on shared Redis.

Everything comes from tabletop.settings (read from the environment as in production); the only
change is a per-run prefix on the channel layer's keys and pub/sub channels, so a benchmark never
reads or writes another user's groups on the shared Redis (scene ids of a fresh bench database
start at 1, like everyone else's).
"""

import os

from tabletop.settings import *  # noqa: F403
from tabletop.settings import CHANNEL_LAYERS

_prefix = os.environ.get("BENCH_LAYER_PREFIX", "")
if _prefix and "CONFIG" in CHANNEL_LAYERS["default"]:
    CHANNEL_LAYERS["default"]["CONFIG"]["prefix"] = _prefix
