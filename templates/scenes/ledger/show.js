// The HTML export's own check: verify the embedded ledger, then that the page shows what it
// holds (each entry's text and the head drawn again from the checked data and compared with the
// text on the page), and say so, naming each entry that breaks the chain, fails its commitment
// or is shown otherwise than its data. It also lays the file out: a constructed stylesheet (the
// file is opened from disk, never under the site's CSP; the page reads fine without it).
(function () {
  "use strict";
  var CSS = [
    "*, *::before, *::after { box-sizing: border-box; }",
    // Long words, hashes and nonces wrap: nothing scrolls sideways, on a phone or a desktop.
    "body { font: 15px/1.45 system-ui, sans-serif; max-width: 72rem; margin: 1rem auto; padding: 0 1rem; color: #1d1d1f; overflow-wrap: anywhere; }",
    "code, .entry-hash { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .85em; }",
    ".entries { list-style: none; margin: 0; padding: 0; border-top: 1px solid #ddd; }",
    ".entry { display: grid; grid-template-columns: auto minmax(0, 1fr); gap: .15rem .75rem; padding: .5rem .25rem; border-bottom: 1px solid #ddd; }",
    ".entry > * { min-width: 0; }",
    ".entry-what, .entry-seal { grid-column: 1 / -1; }",
    "@media (min-width: 60rem) {",
    "  .entry { grid-template-columns: 6.5rem 10.5rem minmax(0, 1fr) minmax(0, 17rem); }",
    "  .entry-what, .entry-seal { grid-column: auto; }",
    "}",
    ".entry-place, .entry-by { color: #555; font-size: .9em; }",
    ".entry-who { font-weight: 600; color: #1d1d1f; }",
    ".entry-facts, .entry-opening { display: block; }",
    ".entry-facts { color: #555; }",
    ".entry-seal { color: #555; font-size: .9em; }",
    ".entry-hash { display: block; }",
    "#ledger-status { font-weight: bold; font-size: 1.2rem; }",
    "#ledger-status.ok { color: #1b7a2e; }",
    "#ledger-status.broken, #ledger-problems { color: #b00020; }",
    ".entry[data-problem] { background: #fde8ea; }",
    "#ledger-covers li, #ledger-problems li { margin-bottom: .35rem; }"
  ].join("\n");
  if (window.CSSStyleSheet && "adoptedStyleSheets" in document) {
    var sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
    document.adoptedStyleSheets = [sheet];
  }

  var status = document.getElementById("ledger-status");
  var list = document.getElementById("ledger-problems");
  var chain = document.getElementById("ledger-entries");
  var rows = chain ? Array.from(chain.querySelectorAll("[data-entry]")) : [];
  function say(text, ok) {
    status.textContent = text;
    status.className = ok ? "ok" : "broken";
  }

  // What the page shows, read before this script changes it: each text to the innermost entry
  // holding it, or to the chain outside any entry (as ledger_text.read_shown reads the file).
  function shownOnPage() {
    var head = document.getElementById("head");
    var shown = { head: head ? head.textContent : null, rows: null, stray: "" };
    if (!chain) { return shown; }
    shown.rows = rows.map(function () { return ""; });
    var walker = document.createTreeWalker(chain, NodeFilter.SHOW_TEXT);
    for (var node = walker.nextNode(); node; node = walker.nextNode()) {
      var row = node.parentElement.closest("[data-entry]");
      var at = row && row !== chain && chain.contains(row) ? rows.indexOf(row) : -1;
      if (at >= 0) { shown.rows[at] += node.data; } else { shown.stray += node.data; }
    }
    return shown;
  }
  var shown = shownOnPage();

  var doc;
  try {
    doc = JSON.parse(document.getElementById("ledger-data").textContent);
  } catch (error) {
    say("NOT VERIFIED: the embedded ledger is not valid JSON (" + error.message + ")", false);
    return;
  }
  var ledger = window.TabletopLedger;
  ledger.verifyLedger(doc).then(function (report) {
    var problems = report.problems.concat(ledger.shownProblems(doc, shown));
    if (!problems.length) {
      say("verified", true);
      return;
    }
    var count = problems.length;
    say("NOT VERIFIED: " + count + " problem" + (count === 1 ? "" : "s"), false);
    problems.forEach(function (problem) {
      var item = document.createElement("li");
      item.textContent = problem.message;
      list.appendChild(item);
      var row = problem.index && rows[problem.index - 1];
      if (row && !row.hasAttribute("data-problem")) { row.setAttribute("data-problem", problem.message); }
    });
  }, function (error) {
    say("NOT VERIFIED: " + error.message, false);
  });
})();
