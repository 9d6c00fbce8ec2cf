"""The outbox's mail transport: a row of channel "mail" as one plain-text message, with the
headers its writer chose (``List-Unsubscribe`` for a digest), through Django's mail backend
(the console under `make run`, SMTP with EMAIL_HOST; EMAIL_TIMEOUT bounds a stalled server)."""

from __future__ import annotations

from django.core.mail import EmailMessage

from tabletop.outbox.models import Outgoing
from tabletop.outbox.sender import Drop, transport


@transport("mail")
def send(row: Outgoing) -> None:
    """Send the row's mail; raises on failure (the sender retries it later)."""
    if not row.address:
        raise Drop("no address")
    headers = {str(k): str(v) for k, v in row.headers.items()}
    EmailMessage(row.subject, row.body, None, [row.address], headers=headers).send()
