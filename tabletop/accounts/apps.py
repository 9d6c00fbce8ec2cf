from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "tabletop.accounts"
    label = "accounts"

    def ready(self) -> None:
        from django.conf import settings
        from django.contrib.auth.signals import user_logged_in, user_logged_out
        from django.db.models.signals import post_delete, pre_save

        from tabletop.accounts import sessions, signals

        # Ending a login closes the scene sockets it opened (see signals.py).
        user_logged_out.connect(signals.on_logged_out, dispatch_uid="accounts-end-sockets-logout")
        # Each login's session is noted, so its owner can list and end it (sessions.py).
        user_logged_in.connect(sessions.on_logged_in, dispatch_uid="accounts-note-session")
        user_logged_out.connect(sessions.on_logged_out, dispatch_uid="accounts-forget-session")
        pre_save.connect(
            signals.on_user_pre_save,
            sender=settings.AUTH_USER_MODEL,
            dispatch_uid="accounts-end-sockets-credentials",
        )
        post_delete.connect(
            signals.on_user_deleted,
            sender=settings.AUTH_USER_MODEL,
            dispatch_uid="accounts-end-sockets-deleted",
        )
