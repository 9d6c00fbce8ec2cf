// Commitments: a hidden result is published sealed (its SHA-256 commitment) and revealed later
// with its canonical JSON text and nonce (tabletop/scenes/commitments.py). The page checks the
// reveal against what it saw sealed, and recomputes the commitment with SubtleCrypto.

// Commitments as first published, by the element that showed them sealed ("event-12"): a
// reveal must match what this page saw before, not only the commitment it brings along.
const sealedCommitments = {};

function hex(buffer) {
  return Array.prototype.map.call(new Uint8Array(buffer), function (b) {
    return b.toString(16).padStart(2, "0");
  }).join("");
}

// --- the checks, on plain values ---

// The commitment of a revealed secret (its canonical JSON text) and nonce: the SHA-256 of
// "<secret>:<nonce>" in UTF-8, in lowercase hex, as tabletop/scenes/commitments.py makes it
// (subtle: the SubtleCrypto to digest with). A promise.
export function commitmentOf(secret, nonce, subtle) {
  return subtle.digest("SHA-256", new TextEncoder().encode(secret + ":" + nonce)).then(hex);
}

// The first commitment a holder ("event-12") showed sealed is the one kept: a card sent
// again, or altered later, cannot change what this page saw. No holder, nothing kept.
export function keepSealed(sealed, holder, commitment) {
  if (holder && !sealed[holder]) { sealed[holder] = commitment; }
  return sealed;
}

// A reveal is checked against what this page saw sealed for it, if it saw it: one that
// brings another commitment was altered, whatever its own hash says.
export function matchesSealed(sealed, holder, commitment) {
  const first = sealed[holder];
  return !(first && first !== commitment);
}

function holderOf(el) {
  const holder = el.closest("[id]");
  return holder ? holder.id : "";
}

export function rememberSealed(root) {
  (root || document).querySelectorAll(".commitment.sealed[data-commitment]").forEach(function (el) {
    keepSealed(sealedCommitments, holderOf(el), el.getAttribute("data-commitment"));
  });
}

// A revealed secret carries its canonical JSON text and nonce: recompute the commitment.
export function verifyCommitments(root) {
  (root || document).querySelectorAll(".commitment[data-secret]:not([data-checked])").forEach(function (el) {
    el.setAttribute("data-checked", "1");
    const status = el.querySelector(".verify-status");
    if (!matchesSealed(sealedCommitments, holderOf(el), el.getAttribute("data-commitment"))) {
      el.classList.add("mismatch");
      if (status) { status.textContent = "⚠ DOES NOT MATCH the commitment published before: this result was altered"; }
      return;
    }
    if (!window.crypto || !window.crypto.subtle) {
      if (status) { status.textContent = "cannot verify here (needs HTTPS)"; }
      return;
    }
    const secret = el.getAttribute("data-secret");
    const nonce = el.getAttribute("data-nonce");
    commitmentOf(secret, nonce, window.crypto.subtle).then(function (computed) {
      const ok = computed === el.getAttribute("data-commitment");
      el.classList.add(ok ? "verified" : "mismatch");
      if (status) {
        status.textContent = ok ? "✔ verified" : "⚠ DOES NOT MATCH the commitment: this result was altered";
      }
    });
  });
}
