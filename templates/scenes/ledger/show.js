// The HTML export's own check: verify the embedded ledger and say so, naming each entry that
// breaks the chain or fails its commitment. It also lays the file out: a constructed stylesheet
// (the file is opened from disk, never under the site's CSP; the page reads fine without it).
(function () {
  "use strict";
  var CSS = [
    "body { font: 15px/1.45 system-ui, sans-serif; max-width: 72rem; margin: 1rem auto; padding: 0 1rem; color: #1d1d1f; }",
    "code { font-size: .85em; overflow-wrap: anywhere; word-break: break-all; }",
    // A wide chain scrolls inside its table, never the page (a phone reads the file too).
    "table { border-collapse: collapse; display: block; max-width: 100%; overflow-x: auto; }",
    "th, td { border-bottom: 1px solid #ddd; padding: .35rem .5rem; text-align: left; vertical-align: top; }",
    "td:nth-child(3) { white-space: nowrap; }",
    "td:nth-child(7) { min-width: 18rem; } td:nth-child(8), td:nth-child(9) { min-width: 12rem; }",
    "#ledger-status { font-weight: bold; font-size: 1.2rem; }",
    "#ledger-status.ok { color: #1b7a2e; }",
    "#ledger-status.broken, #ledger-problems { color: #b00020; }",
    "tr[data-problem] { background: #fde8ea; }"
  ].join("\n");
  if (window.CSSStyleSheet && "adoptedStyleSheets" in document) {
    var sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
    document.adoptedStyleSheets = [sheet];
  }

  var status = document.getElementById("ledger-status");
  var list = document.getElementById("ledger-problems");
  function say(text, ok) {
    status.textContent = text;
    status.className = ok ? "ok" : "broken";
  }
  var doc;
  try {
    doc = JSON.parse(document.getElementById("ledger-data").textContent);
  } catch (error) {
    say("NOT VERIFIED: the embedded ledger is not valid JSON (" + error.message + ")", false);
    return;
  }
  window.TabletopLedger.verifyLedger(doc).then(function (report) {
    if (report.ok) {
      say("verified", true);
      return;
    }
    var count = report.problems.length;
    say("NOT VERIFIED: " + count + " problem" + (count === 1 ? "" : "s"), false);
    report.problems.forEach(function (problem) {
      var item = document.createElement("li");
      item.textContent = problem.message;
      list.appendChild(item);
      var row = problem.index && document.getElementById("entry-" + problem.index);
      if (row) { row.setAttribute("data-problem", problem.message); }
    });
  }, function (error) {
    say("NOT VERIFIED: " + error.message, false);
  });
})();
