// No unit test: DOM wiring only, with no decision of its own to test without a page.
// Spend buttons are rendered once for every player; each page keeps only those meant for its
// user (data-only-for) and drops those meant for everyone else (data-not-for). The server
// checks every command anyway.

import { me } from "./page.js";

export function pruneControls(root) {
  const viewer = me();
  (root || document).querySelectorAll("[data-only-for]").forEach(function (el) {
    if (el.getAttribute("data-only-for") !== viewer) { el.remove(); }
  });
  (root || document).querySelectorAll("[data-not-for]").forEach(function (el) {
    if (el.getAttribute("data-not-for") === viewer) { el.remove(); }
  });
}
