"""What a person does to their own account: change its email, take away what is theirs, leave.

Leaving (``account_delete``) keeps every campaign playable: the person's characters go with
them (after they downloaded them, ``account_export``), their memberships end, and every event
they recorded stays where it is in each scene's log, shown as "a former member". Each scene's
hash chain is the record every member already holds: its entries are never rewritten, so every
ledger verifies exactly as before.
"""

from __future__ import annotations

import io
import json
import logging
import zipfile
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.forms.models import model_to_dict
from django.utils import timezone

from tabletop.accounts.models import TablePreferences
from tabletop.campaigns.models import Campaign
from tabletop.characters.models import model_of
from tabletop.scenes import ledger, ledger_text
from tabletop.scenes.models import Scene, SceneEvent
from tabletop.scenes.selectors import viewer_for

log = logging.getLogger(__name__)

#: How a deleted account's lines and rolls name them from then on.
FORMER_MEMBER = "a former member"
#: The keys under which an event's data names the member who acted (a speaker, a roller, a
#: spender...) and a whisper's list of those it was for.
NAME_KEYS = frozenset({"speaker", "roller", "who", "by"})
NAME_LISTS = frozenset({"to"})


@transaction.atomic
def email_change(*, user: Any, email: str, account_link: str) -> str:
    """Set the address reset links are sent to; one account an address (so a reset mail never
    goes to two people). The address it replaces is told, after commit (``account_link``, the
    account page, is where to put it back). Returns that old address, or "" when none is told
    (there was none, or it is the same)."""
    email = get_user_model().objects.normalize_email(email.strip())
    taken = get_user_model().objects.filter(email__iexact=email).exclude(pk=user.pk)
    if email and taken.exists():
        raise ValidationError("Another account uses that address.")
    old = get_user_model().objects.filter(pk=user.pk).values_list("email", flat=True).get()
    user.email = email
    user.save(update_fields=["email"])
    if not old or old == email:
        return ""
    mail = _email_changed_mail(user=user, old=old, new=email, account_link=account_link)
    transaction.on_commit(lambda: _send_notice(mail))
    return old


def _send_notice(mail: Any) -> None:
    """A notice that can't be sent is logged: the change it tells of is already made."""
    try:
        mail.send()
    except OSError:
        log.warning("the email-changed notice could not be sent", exc_info=True)


def _email_changed_mail(*, user: Any, old: str, new: str, account_link: str) -> Any:
    from django.conf import settings
    from django.core.mail import EmailMessage
    from django.template.loader import render_to_string

    context = {
        "name": user.get_username(),
        "site_title": settings.SITE_NAME,
        "old": old,
        "new": new,
        "account_link": account_link,
    }
    subject = f"Your email address on {settings.SITE_NAME} was changed"
    body = render_to_string("accounts/email_changed.txt", context)
    return EmailMessage(subject, body, None, [old])


# --- what is theirs ------------------------------------------------------------------------------


def _character_record(character: Any) -> dict[str, Any]:
    sheet = model_of(character).objects.get(pk=character.pk)
    fields = model_to_dict(sheet)
    for shared in ("id", "character_ptr", "campaign", "owner"):
        fields.pop(shared, None)
    return {
        "campaign": character.campaign.name,
        "system": character.campaign.system,
        "sheet": json.loads(json.dumps(fields, default=str)),
        "saved_rolls": [_saved_roll(r) for r in character.saved_rolls.all()],
    }


def _saved_roll(roll: Any) -> dict[str, str]:
    return {"name": roll.name, "expression": roll.expression}


def account_export(*, user: Any) -> bytes:
    """A zip of what is theirs: ``characters.json`` (every character they own, with its sheet
    and saved rolls), ``saved_rolls.json`` (their own rolls in each campaign)
    and one session ledger per scene they can see (``ledgers/<campaign>-<scene>.json``, the
    same file the scene page gives them)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        characters = [
            _character_record(c) for c in user.characters.select_related("campaign").order_by("pk")
        ]
        archive.writestr("characters.json", json.dumps(characters, indent=2, ensure_ascii=False))
        own = user.saved_rolls.filter(character__isnull=True).select_related("campaign")
        rolls = [{"campaign": r.campaign.name, **_saved_roll(r)} for r in own]
        archive.writestr("saved_rolls.json", json.dumps(rolls, indent=2, ensure_ascii=False))
        scenes = Scene.objects.filter(campaign__memberships__user=user).select_related("campaign")
        for scene in scenes.order_by("campaign_id", "pk"):
            viewer = viewer_for(campaign=scene.campaign, user=user)
            if viewer is None:
                continue
            doc = ledger.export(scene=scene, viewer=viewer, viewer_name=user.get_username())
            name = ledger_text.filename(scene, "json")
            archive.writestr(f"ledgers/{scene.campaign_id}-{scene.pk}-{name}", ledger.to_json(doc))
        archive.writestr(
            "README.txt",
            f"What {user.get_username()} had at the table, exported "
            f"{timezone.now():%Y-%m-%d %H:%M} UTC.\n"
            "characters.json: your characters, their sheets and saved rolls.\n"
            "saved_rolls.json: the rolls you keep for yourself in each campaign.\n"
            "ledgers/: each scene's session ledger as you could see it; check one with\n"
            "`python manage.py verify_ledger FILE`.\n",
        )
    return buffer.getvalue()


# --- leaving --------------------------------------------------------------------------------------


def campaigns_run(*, user: Any) -> list[Campaign]:
    return list(Campaign.objects.filter(gm=user).order_by("name"))


def _renamed(value: Any, name: str) -> tuple[Any, bool]:
    """``value`` with ``name`` replaced by ``FORMER_MEMBER`` wherever it names a member."""
    if isinstance(value, list):
        pairs = [_renamed(item, name) for item in value]
        return [v for v, _ in pairs], any(c for _, c in pairs)
    if not isinstance(value, dict):
        return value, False
    out, changed = {}, False
    for key, item in value.items():
        if key in NAME_KEYS and item == name:
            out[key], hit = FORMER_MEMBER, True
        elif key in NAME_LISTS and isinstance(item, list):
            out[key] = [FORMER_MEMBER if v == name else v for v in item]
            hit = out[key] != item
        else:
            out[key], hit = _renamed(item, name)
        changed = changed or hit
    return out, changed


def _former_member_in_events(*, user: Any) -> int:
    """Rename the member in the cards of every scene they played in. The chain's frozen entries
    (``SceneEvent.ledger``) are left as they are: they are what every member already holds."""
    name = user.get_username()
    events = SceneEvent.objects.filter(scene__campaign__memberships__user=user).only(
        "pk", "public", "secret"
    )
    changed = []
    for event in events.iterator(chunk_size=500):
        event.public, public_hit = _renamed(event.public, name)
        event.secret, secret_hit = _renamed(event.secret, name)
        if public_hit or secret_hit:
            changed.append(event)
    SceneEvent.objects.bulk_update(changed, ["public", "secret"], batch_size=500)
    return len(changed)


@transaction.atomic
def account_delete(*, user: Any) -> None:
    """Delete the account. Refused while they run a campaign (its table would lose its GM):
    they hand it over or delete it first. Their open sockets close after commit
    (``accounts.signals.on_user_deleted``)."""
    run = campaigns_run(user=user)
    if run:
        names = ", ".join(c.name for c in run)
        raise ValidationError(
            f"You run {names}. A campaign can't lose its GM: delete "
            f"{'it' if len(run) == 1 else 'them'} first."
        )
    _former_member_in_events(user=user)
    user.delete()


def table_preferences_save(*, user: Any, announce: str, slash_key: bool) -> None:
    """Keep how ``user``'s scene page speaks (``announce``) and whether "/" reaches its message
    box. An unknown ``announce`` is refused, and nothing changes."""
    if announce not in TablePreferences.Announce.values:
        raise ValidationError(f"Unknown announcement choice {announce!r}.")
    TablePreferences.objects.update_or_create(
        user=user, defaults={"announce": announce, "slash_key": slash_key}
    )
