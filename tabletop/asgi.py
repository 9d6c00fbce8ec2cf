"""ASGI entry point: HTTP through Django, websockets through Channels.

A page load answers within PAGE_ANSWER_SECONDS, if only with a 503 page saying the server is
waiting on its database (tabletop/bounded.py).

Sockets pass AllowedHostsOriginValidator (a foreign or missing Origin is refused) and
SessionMiddlewareStack (the Django session, not read yet) before the consumer, which reads the
session's user with what else the socket needs (tabletop/scenes/opening.py): Channels'
AuthMiddleware would read the user on a database thread first.

``/health/`` is answered before Django (tabletop/operating/health.py).
"""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tabletop.settings")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402  (needs the app registry)
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from channels.sessions import SessionMiddlewareStack  # noqa: E402
from django.conf import settings  # noqa: E402

from tabletop.bounded import BoundedPages  # noqa: E402
from tabletop.operating import serving  # noqa: E402
from tabletop.operating.health import HealthCheck  # noqa: E402
from tabletop.outbox import sender  # noqa: E402
from tabletop.routing import websocket_urlpatterns  # noqa: E402
from tabletop.scenes.feed import durable  # noqa: E402

#: The collector's young generation: collected every 10,000 new container objects instead of
#: 700. A roll makes thousands of short-lived ones (template contexts, rows, dicts), and with
#: the default a busy server ran a young collection several times per roll.
GC_YOUNG_THRESHOLD = 10_000

application = ProtocolTypeRouter(
    {
        "http": BoundedPages(HealthCheck(django_asgi_app)),
        "websocket": AllowedHostsOriginValidator(
            SessionMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)

if settings.OUTBOX_SENDER:
    # Mail and the durable readers, beside the server: no separate worker to run.
    sender.start(wake=durable.wake)

# Under daphne: say it serves (a restore refuses then), close its sockets with 1012 when told
# to stop (tabletop/operating/serving.py).
serving.install_under_daphne()

# What start-up built (modules, templates, URL patterns, the app) lives as long as the process:
# freezing it keeps every later full collection from walking it again (such a collection paused
# a busy server for up to 179 ms, bench/README.md).
gc.collect()
gc.freeze()
gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])
