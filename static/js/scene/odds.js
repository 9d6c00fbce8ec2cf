// A roll panel's odds (its .odds element asks the server with hx-get): not asked for while the
// table is away (the request could only fail); those skipped, or failed as they went, are asked
// for again once it is back. Just fetched, their one-line summary joins the panel's Roll button.

import { isOffline } from "./socket.js";

let staleOdds = [];

function isOdds(el) { return !!(el && el.classList && el.classList.contains("odds")); }

function fetchOdds(el) {
  const asked = window.htmx.ajax("GET", el.getAttribute("hx-get"), { source: el, target: el, swap: "innerHTML" });
  if (asked && asked.catch) { asked.catch(function () { /* the next change asks again */ }); }
}

export function askOdds(el) {
  if (!el || !window.htmx) { return; }
  if (isOffline()) {  // asked again once the table is back (refreshOdds)
    if (staleOdds.indexOf(el) < 0) { staleOdds.push(el); }
    return;
  }
  fetchOdds(el);
}

// The table is back: the odds skipped or failed while it was away, asked for again.
export function refreshOdds() {
  const due = staleOdds;
  staleOdds = [];
  due.forEach(function (el) {
    if (!el.isConnected) { return; }
    fetchOdds(el);
  });
}

export function listen() {
  document.body.addEventListener("htmx:beforeRequest", function (evt) {
    const el = evt.detail && evt.detail.elt;
    if (!isOffline() || !isOdds(el)) { return; }
    evt.preventDefault();
    if (staleOdds.indexOf(el) < 0) { staleOdds.push(el); }
  });

  document.body.addEventListener("htmx:sendError", function (evt) {
    const el = evt.detail && evt.detail.elt;
    if (isOdds(el) && staleOdds.indexOf(el) < 0) { staleOdds.push(el); }
  });

  // A roll panel's odds, just fetched: their one-line summary joins the Roll button in the
  // panel's action bar, which stays in view while the full table may be scrolled away.
  document.body.addEventListener("htmx:afterSwap", function (evt) {
    const odds = evt.detail && evt.detail.target;
    if (!odds || !odds.classList || !odds.classList.contains("odds")) { return; }
    const form = odds.closest("form");
    const line = form && form.querySelector(".roll-actions .odds-line");
    if (!line) { return; }
    const note = odds.querySelector(".odds-chart .muted, .odds-error");
    let text = note ? note.textContent.replace(/\s+/g, " ").trim() : "";
    if (text.indexOf("%") < 0 && !odds.querySelector(".odds-error")) {
      // No summary with a chance in it: each outcome's chance, in a line.
      text = Array.prototype.map.call(odds.querySelectorAll(".odds-chart tr"), function (row) {
        const th = row.querySelector("th");
        const cells = row.querySelectorAll("td");
        return th && cells.length ? th.textContent.trim() + " " + cells[cells.length - 1].textContent.trim() : "";
      }).filter(Boolean).join(" · ");
    }
    line.textContent = text;
    line.classList.toggle("odds-error", !!odds.querySelector(".odds-error"));
  });
}
