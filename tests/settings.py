"""The test run's settings: the project's, plus the sixth game system that lives under tests/
(tests/tabletop/systems/sixth, "coin"), installed as any system's app is, to prove a system
with its own sheet, currency, stylesheet and rollable needs no change to generic code."""

from tabletop.settings import *  # noqa: F403
from tabletop.settings import INSTALLED_APPS, env_bool

INSTALLED_APPS = [*INSTALLED_APPS, "tests.tabletop.systems.sixth"]

# Every recorded event is checked against the shapes its kind declares (tabletop.scenes.payloads),
# as Zulip checks its events against their schemas in its tests.
CHECK_EVENT_PAYLOADS = True

# Every action run without a transaction (``scene_action(atomic=False)``) is held to its one write
# outside a transaction: a second is refused before it runs (tabletop/scenes/fastpath/onewrite.py).
CHECK_ONE_WRITE = True

# The tests run the sender's passes themselves (tabletop.outbox.sender.tick); a daphne that a test
# starts (tests/servers.py) runs its own sender thread when the test sets OUTBOX_SENDER=true.
OUTBOX_SENDER = env_bool("OUTBOX_SENDER", False)
