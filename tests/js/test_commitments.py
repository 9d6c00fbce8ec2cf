"""Commitments checked by the page (static/js/scene/commitments.js): the commitment it computes
for a revealed secret is the server's (tabletop/scenes/commitments.py), and a reveal must also
match what the page saw sealed before."""

from __future__ import annotations

import pytest

from tabletop.scenes.commitments import canonical_json, commit, verify
from tests.support.node import needs_node, one, run

pytestmark = needs_node

COMMITMENT = "return await m.commitmentOf(c.secret, c.nonce, globalThis.crypto.subtle);"

SECRETS = [
    {"dice": [3, 5], "modifier": 1, "total": 9},
    {"name": "Mira Vëx", "note": "«the vault» 🎲", "ok": True},  # UTF-8 on both sides
    {"expression": "2d6:1", "by": None},  # a ":" inside the secret text
    {},
    [[1, 2], {"z": 1, "a": [0.5]}],
]


@pytest.mark.parametrize("secret", SECRETS)
def test_the_page_computes_the_servers_commitment(secret):
    commitment, nonce = commit(secret)
    text = canonical_json(secret)
    computed = one("commitments.js", COMMITMENT, {"secret": text, "nonce": nonce})
    assert computed == commitment
    assert len(computed) == 64 and computed == computed.lower()


def test_an_altered_secret_or_nonce_computes_another_commitment():
    commitment, nonce = commit({"total": 9})
    cases = [
        {"secret": canonical_json({"total": 9}), "nonce": nonce},
        {"secret": canonical_json({"total": 12}), "nonce": nonce},
        {
            "secret": canonical_json({"total": 9}),
            "nonce": nonce[:-1] + ("0" if nonce[-1] != "0" else "1"),
        },
        {"secret": canonical_json({"total": 9}) + " ", "nonce": nonce},
    ]
    computed = run("commitments.js", COMMITMENT, cases)
    assert computed[0] == commitment
    assert all(other != commitment for other in computed[1:])
    assert [verify(c["secret"], c["nonce"], commitment) for c in cases] == [
        True,
        False,
        False,
        False,
    ]


def test_the_first_commitment_seen_sealed_is_kept():
    body = """
const sealed = {};
c.forEach(function (seen) { m.keepSealed(sealed, seen[0], seen[1]); });
return sealed;
"""
    seen = [["event-1", "aaa"], ["event-2", "bbb"], ["event-1", "ccc"], ["", "ddd"]]
    # The card sent again (or altered) later does not replace what was first seen; a
    # commitment with no holder to name it is not kept at all.
    assert one("commitments.js", body, seen) == {"event-1": "aaa", "event-2": "bbb"}


@pytest.mark.parametrize(
    ("holder", "commitment", "matches"),
    [
        ("event-1", "aaa", True),
        ("event-1", "aab", False),  # another commitment than the one seen sealed
        ("event-9", "zzz", True),  # never seen sealed (joined after): its own hash decides
        ("", "aaa", True),
    ],
)
def test_a_reveal_is_checked_against_what_was_seen_sealed(holder, commitment, matches):
    body = 'return m.matchesSealed({ "event-1": "aaa" }, c[0], c[1]);'
    assert one("commitments.js", body, [holder, commitment]) is matches


def test_a_self_consistent_reveal_of_another_result_is_still_caught():
    # The GM's secret roll was sealed as a 3; a reveal of a 6 brings its own commitment and
    # nonce, which hash correctly: only the commitment seen sealed shows the result changed.
    sealed, _ = commit({"roll": 3})
    forged, nonce = commit({"roll": 6})
    body = """
const sealed = m.keepSealed({}, "event-4", c.sealed);
const computed = await m.commitmentOf(c.secret, c.nonce, globalThis.crypto.subtle);
return {
  ownHashHolds: computed === c.forged,
  matchesSealed: m.matchesSealed(sealed, "event-4", c.forged),
};
"""
    case = {
        "sealed": sealed,
        "forged": forged,
        "secret": canonical_json({"roll": 6}),
        "nonce": nonce,
    }
    assert one("commitments.js", body, case) == {"ownHashHolds": True, "matchesSealed": False}
