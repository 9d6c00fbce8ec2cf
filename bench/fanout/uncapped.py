"""The app as deployed, with the per-socket command limit lifted: the ceiling's entry point.

The closed-loop ceiling asks how many rolls one process can serve, so its sockets roll as fast
as their rolls come back, as the bare relay's do. At 8×10 that is about six rolls a second per
socket, over the app's limit of five (a product rule, ``consumers.RATE_PER_SECOND``, which
would cap the cell at 360 rolls/s and measure the rule instead of the server). Everything else
is ``tabletop.asgi:application`` unchanged.
"""

from tabletop.asgi import application  # noqa: F401 - served by daphne
from tabletop.scenes import consumers

consumers.RATE_PER_SECOND = consumers.RATE_BURST = 1e9
