from django.apps import AppConfig


class NotifyConfig(AppConfig):
    name = "tabletop.notify"
    label = "notify"

    def ready(self) -> None:
        from tabletop.notify import digests, reader
        from tabletop.outbox import sender
        from tabletop.scenes.feed import durable

        # Each member's notifications are a durable reader of every scene of their campaigns.
        durable.register(reader.NOTIFICATIONS)
        sender.chore(digests.compose_due, every=digests.COMPOSE_SECONDS)
