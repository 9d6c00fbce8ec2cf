"""The table's log in the group's Discord channel (issue 46): one webhook per campaign, posted
to by a durable reader of each scene that reads as an outsider (``reader.py``), through the
outbox and its sender (tabletop/outbox), in order per scene (``transport.py``).

- ``webhooks.py``: the webhook URL a GM pastes (Discord's hosts only, kept as id and token) and
  the HTTP calls (execute with ``?wait=true``, edit a message), each answer sorted into what
  the sender does with it (a rate limit waits, a deleted webhook stops the mirror).
- ``embeds.py``: an event as an outsider sees it, as a Discord embed (players' text escaped).
- ``reader.py``: the durable reader: the outbox rows, in the cursor's transaction.
- ``transport.py``: the outbox's "discord" channel: posts, edits for reveals, the test message.
- ``actions.py``, ``selectors.py``, ``views.py``: the GM's settings (campaign settings page).
"""
