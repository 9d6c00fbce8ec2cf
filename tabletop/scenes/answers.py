"""How a socket's command ended, as its page hears it: ``{"type": "done", "cid": ...}``, with
the error and whether the same command may be sent again. The page keeps a form or the
composer's line as the user left it until it is done, so a refused roll is fixed and sent
again, never reset (a hidden mode back to public)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import InterfaceError, OperationalError

from rules.core import RulesError
from tabletop.scenes import outage
from tabletop.scenes.incoming import COMMAND_ID, ClientError

NOT_ANSWERING = (
    "The table's server is not answering: this was not made yet. Try again in a moment "
    "(it will not be made twice)."
)
DATABASE_DOWN = (
    "The table's server cannot reach its database: this was not made. Try again in a moment."
)
SERVER_BUSY = "The table's server is too busy just now: this was not made. Try again in a moment."
FAILED = "That command failed on the server. Reload if the scene looks stale."
FLOODED = "Slow down: too many commands at once. Try again in a moment."


_EXPECTED = (
    ClientError,
    RulesError,
    PermissionDenied,
    ValidationError,
    OperationalError,
    InterfaceError,
)


def expected(exc: Exception) -> bool:
    """Whether a command's exception is one of the refusals a table meets (not a bug)."""
    return isinstance(exc, _EXPECTED)


def refusal(exc: Exception, content: Any) -> tuple[str, bool] | None:
    """What the page is told of a command that raised ``exc``: the message and whether the
    same command may be sent again; None for a hello the database failed (tried again by
    itself: nothing for the page to do)."""
    if isinstance(exc, ClientError | RulesError):
        return str(exc), False
    if isinstance(exc, PermissionDenied):
        return str(exc) or "You may not do that here.", False
    if isinstance(exc, ValidationError):
        return " ".join(exc.messages), False
    if isinstance(exc, OperationalError | InterfaceError):
        outage.database.failed(exc)  # one log line for the outage, not one per command
        if isinstance(content, dict) and content.get("command") == "hello":
            return None
        return (SERVER_BUSY if getattr(exc, "process_busy", False) else DATABASE_DOWN), True
    # A bug behind one command must not drop the player's live table; actions are atomic.
    return FAILED, False


def answer(
    content: Any, *, error: str | None, retry: bool = False, repeat: bool = False
) -> dict[str, Any] | None:
    """The answer to the command the page named (``cid``): done, or refused and why; None
    without an id of ours (a script, an old page): nothing to answer."""
    cid = content.get("cid") if isinstance(content, dict) else None
    if not isinstance(cid, str) or not COMMAND_ID.fullmatch(cid):
        return None
    done: dict[str, Any] = {"type": "done", "cid": cid}
    if error is not None:
        done["error"] = error
    if retry:
        done["retry"] = True  # not made (or not yet): the same id may be sent again
    if repeat:
        done["repeat"] = True  # made before, under the same id: not made again
    return done
