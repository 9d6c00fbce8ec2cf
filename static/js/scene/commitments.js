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

function holderOf(el) {
  const holder = el.closest("[id]");
  return holder ? holder.id : "";
}

export function rememberSealed(root) {
  (root || document).querySelectorAll(".commitment.sealed[data-commitment]").forEach(function (el) {
    const key = holderOf(el);
    if (key && !sealedCommitments[key]) { sealedCommitments[key] = el.getAttribute("data-commitment"); }
  });
}

// A revealed secret carries its canonical JSON text and nonce: recompute the commitment.
export function verifyCommitments(root) {
  (root || document).querySelectorAll(".commitment[data-secret]:not([data-checked])").forEach(function (el) {
    el.setAttribute("data-checked", "1");
    const status = el.querySelector(".verify-status");
    const first = sealedCommitments[holderOf(el)];
    if (first && first !== el.getAttribute("data-commitment")) {
      el.classList.add("mismatch");
      if (status) { status.textContent = "⚠ DOES NOT MATCH the commitment published before: this result was altered"; }
      return;
    }
    const text = el.getAttribute("data-secret") + ":" + el.getAttribute("data-nonce");
    if (!window.crypto || !window.crypto.subtle) {
      if (status) { status.textContent = "cannot verify here (needs HTTPS)"; }
      return;
    }
    window.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)).then(function (digest) {
      const ok = hex(digest) === el.getAttribute("data-commitment");
      el.classList.add(ok ? "verified" : "mismatch");
      if (status) {
        status.textContent = ok ? "✔ verified" : "⚠ DOES NOT MATCH the commitment: this result was altered";
      }
    });
  });
}
