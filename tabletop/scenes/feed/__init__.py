"""A scene's readers: each is a cursor over the scene's sequence of events, read through the
one ``audiences.visibility`` as the viewer that reader is.

- ``cursor``: a live reader's state machine (no I/O): inputs in, effects out.
- ``replay``: the one place a stretch of the log is read again for a viewer.
- ``socket``: a live socket's cursor, carrying out its effects.
- ``durable``: readers that are not sockets (notifications, a mirror): a cursor row each,
  advanced in the transaction that makes the reader's effect.
"""
