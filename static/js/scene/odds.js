// A roll form's odds (its .odds element asks the server with hx-get): not asked for while the
// table is away (the request could only fail); those skipped, or failed as they went, are asked
// for again once it is back. Just fetched, their one-line summary joins the roll form's Roll button.

import { isOffline } from "./socket.js";

let staleOdds = [];

// --- the decisions, on plain values ---

// An odds element the table was away for (or whose request failed), kept to ask for again:
// each once, however often it was skipped.
export function keepStale(stale, el) {
  if (stale.indexOf(el) < 0) { stale.push(el); }
  return stale;
}

// The table is back: of the odds kept, those still on the page are asked for again.
export function dueOdds(stale) { return stale.filter(function (el) { return el.isConnected; }); }

// The odds' one line beside the Roll button: the chart's note when it gives a chance, or the
// error; else each outcome's chance, "Fail 41.7% · Success 58.3%". note: the note's (or the
// error's) text, null when there is none; rows: each chart row's heading and last cell texts
// (null when the row has none).
export function oddsLine(note, isError, rows) {
  const text = note !== null ? note.replace(/\s+/g, " ").trim() : "";
  if (text.indexOf("%") >= 0 || isError) { return text; }
  return rows.map(function (row) {
    return row[0] !== null && row[1] !== null ? row[0].trim() + " " + row[1].trim() : "";
  }).filter(Boolean).join(" · ");
}

// The "Chance of at least" box kept through the swap: the default it stands for when blank,
// and whether the server took the number in it.
function keptReachBox(reach, isError) {
  const box = reach.querySelector("input");
  if (!box) { return; }
  box.placeholder = reach.getAttribute("data-default") || "";
  if (isError) { box.setAttribute("aria-invalid", "true"); } else { box.removeAttribute("aria-invalid"); }
}

function isOdds(el) { return !!(el && el.classList && el.classList.contains("odds")); }

function fetchOdds(el) {
  const asked = window.htmx.ajax("GET", el.getAttribute("hx-get"), { source: el, target: el, swap: "innerHTML" });
  if (asked && asked.catch) { asked.catch(function () { /* the next change asks again */ }); }
}

export function askOdds(el) {
  if (!el || !window.htmx) { return; }
  if (isOffline()) {  // asked again once the table is back (refreshOdds)
    keepStale(staleOdds, el);
    return;
  }
  fetchOdds(el);
}

// The table is back: the odds skipped or failed while it was away, asked for again.
export function refreshOdds() {
  const due = dueOdds(staleOdds);
  staleOdds = [];
  due.forEach(function (el) { fetchOdds(el); });
}

export function listen() {
  document.body.addEventListener("htmx:beforeRequest", function (evt) {
    const el = evt.detail && evt.detail.elt;
    if (!isOffline() || !isOdds(el)) { return; }
    evt.preventDefault();
    keepStale(staleOdds, el);
  });

  document.body.addEventListener("htmx:sendError", function (evt) {
    const el = evt.detail && evt.detail.elt;
    if (isOdds(el)) { keepStale(staleOdds, el); }
  });

  // A roll form's odds, just fetched: their one-line summary joins the Roll button in the
  // roll form's action bar, which stays in view while the full table may be scrolled away.
  document.body.addEventListener("htmx:afterSwap", function (evt) {
    const odds = evt.detail && evt.detail.target;
    if (!odds || !odds.classList || !odds.classList.contains("odds")) { return; }
    const form = odds.closest("form");
    const line = form && form.querySelector(".roll-actions .odds-line");
    if (!line) { return; }
    // An open-ended roll's odds name their own line ("At least 15: 43.2%", or what is wrong with
    // the number typed); the box that number is typed in was kept as it was (hx-preserve), so
    // its hint and its validity follow the odds just fetched.
    const reach = odds.querySelector("[data-odds-gist]");
    if (reach) {
      const reachError = reach.hasAttribute("data-odds-gist-error");
      keptReachBox(reach, reachError);
      line.textContent = reach.getAttribute("data-odds-gist");
      line.classList.toggle("odds-error", reachError);
      return;
    }
    const note = odds.querySelector(".odds-chart .muted, .odds-error");
    const isError = !!odds.querySelector(".odds-error");
    const rows = Array.prototype.map.call(odds.querySelectorAll(".odds-chart tr"), function (row) {
      const th = row.querySelector("th");
      const cells = row.querySelectorAll("td");
      return [th ? th.textContent : null, cells.length ? cells[cells.length - 1].textContent : null];
    });
    line.textContent = oddsLine(note ? note.textContent : null, isError, rows);
    line.classList.toggle("odds-error", isError);
  });
}
