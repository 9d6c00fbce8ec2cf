"""Hash commitments that let players verify a secret was not altered after the fact.

commitment = sha256(canonical_json(secret) + ":" + nonce), nonce = 32 random bytes (hex).
On reveal the canonical JSON text and the nonce are published; the browser recomputes the hash
with SubtleCrypto (static/js/scene.js) and shows "verified" or a loud warning.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from typing import Any


def canonical_json(value: Any) -> str:
    """One spelling for one value: sorted keys, no spaces, UTF-8 text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def new_nonce() -> str:
    return secrets.token_hex(32)


def commitment_for(secret: Any, nonce: str) -> str:
    text = canonical_json(secret) + ":" + nonce
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def commit(secret: Any) -> tuple[str, str]:
    """Return (commitment, nonce) for a secret."""
    nonce = new_nonce()
    return commitment_for(secret, nonce), nonce


def verify(secret_text: str, nonce: str, commitment: str) -> bool:
    """Check a published canonical text and nonce against a commitment (constant time)."""
    digest = hashlib.sha256((secret_text + ":" + nonce).encode("utf-8")).hexdigest()
    return hmac.compare_digest(digest, commitment)
