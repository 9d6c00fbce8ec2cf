#!/usr/bin/env python3
"""A fake Discord on this machine, to try the campaign's Discord mirror on `make run` without
Discord (`make fake-discord`): it serves Discord's webhook API on loopback
(tests/support/fake_discord.py), makes one webhook, and prints each message it receives as a
channel would show it.

    make fake-discord                              # terminal 1: prints the URL to paste
    DISCORD_API_BASE=http://127.0.0.1:8472/api make run    # terminal 2

Then, as the GM: the campaign's Settings, "Discord mirror", paste the URL, Save, "Send a test
message".
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.fake_discord import FakeDiscord, Received  # noqa: E402


def _embed_lines(embed: dict[str, Any]) -> list[str]:
    lines = []
    if embed.get("author"):
        lines.append(f"  {embed['author'].get('name', '')}")
    for line in str(embed.get("description", "")).splitlines():
        lines.append(f"  | {line}")
    for item in embed.get("fields", ()):
        lines.append(f"  | {item.get('name')}: {item.get('value')}")
    if embed.get("footer"):
        lines.append(f"  ({embed['footer'].get('text', '')})")
    return lines


def show(received: Received) -> None:
    """One request as a channel would show it (never the token)."""
    clock = time.strftime("%H:%M:%S", time.localtime(received.at))
    what = "edits message " + str(received.message_id) if received.method == "PATCH" else "posts"
    print(f"[{clock}] {received.method} webhook {received.webhook_id} {what} -> {received.status}")
    if received.body.get("content"):
        print(f"  {received.body['content']}")
    for embed in received.body.get("embeds", ()):
        print("\n".join(_embed_lines(embed)))
    mentions = received.body.get("allowed_mentions")
    print(f"  allowed_mentions: {mentions}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8472)
    args = parser.parse_args()
    fake = FakeDiscord(args.port).start()
    fake.on_request = show
    _, _, url = fake.webhook()
    print(f"A fake Discord is listening on {fake.base}")
    print(f"Start the app with:  DISCORD_API_BASE={fake.base} make run")
    print("Paste this webhook URL on the campaign's settings page (Discord mirror):")
    print(f"  {url}")
    print("Each message it receives is printed below. Ctrl-C stops it.", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        fake.stop()


if __name__ == "__main__":
    main()
