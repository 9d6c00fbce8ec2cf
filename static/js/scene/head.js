// No unit test: DOM wiring only (tests/browser/test_phone_header.py folds and unfolds it).
// The scene's header on a phone: folded to one line (its name, status and connection), the
// rest (campaign, system, statistics, the GM's open/close, the ledger) behind a toggle that
// unfolds it (scene.css). On a desktop the toggle is hidden and everything shows.

import { scrollLog } from "./log.js";

export function listen() {
  document.addEventListener("click", function (evt) {
    const toggle = evt.target.closest ? evt.target.closest("#scene-head-toggle") : null;
    if (!toggle) { return; }
    const head = document.getElementById("scene-head");
    if (!head) { return; }
    const unfold = !head.classList.contains("unfolded");
    head.classList.toggle("unfolded", unfold);
    toggle.setAttribute("aria-expanded", unfold ? "true" : "false");
    scrollLog();  // the log grew or shrank: its newest line stays in view
  });
}
