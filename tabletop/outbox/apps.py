from django.apps import AppConfig


class OutboxConfig(AppConfig):
    name = "tabletop.outbox"
    label = "outbox"

    def ready(self) -> None:
        from tabletop.operating.restoring import restored
        from tabletop.outbox import mail, sender  # noqa: F401  (the mail transport registers)
        from tabletop.scenes.feed import durable

        # The sender's passes catch the durable readers up: the scenes woken since the last
        # catch-up (every few seconds at most), and every scene at its start (after a
        # restart) and now and then.
        sender.chore(durable.catch_up_woken, every=durable.WOKEN_EVERY_SECONDS)
        sender.chore(durable.sweep, every=durable.SWEEP_SECONDS)
        # After a restore nothing already sent goes again: the readers resume at each scene's
        # newest seq and what the backup held as pending is dropped (it may have gone since).
        restored.connect(sender.after_restore, dispatch_uid="outbox-after-restore")
