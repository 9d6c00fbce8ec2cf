from django.apps import AppConfig


class DiscordConfig(AppConfig):
    name = "tabletop.discord"
    label = "discord"
    verbose_name = "Discord mirror"

    def ready(self) -> None:
        from tabletop.discord import reader, transport  # noqa: F401  (the transport registers)
        from tabletop.scenes.feed import durable

        # The mirror is a durable reader of every scene of a campaign whose mirror is on; the
        # restore hook (tabletop/outbox/sender.py: after_restore) moves its cursors too.
        durable.register(reader.MIRROR)
