// The keyboard at the table: the skip links (the message box, the Roll tool) are the first tab
// stops; "/" reaches the message box from anywhere outside a field (a member may turn that key
// off: WCAG 2.1.4); the log is one tab stop, its cards reached with the arrow keys, Home and End
// (a roving tabindex: the card last reached is the log's stop, the newest until one is), Enter
// opens a card's controls to Tab through, Escape closes them again. Escape in the message box
// is the composer's (composer-line.js): it clears the line under the box, then comes here.

import { log } from "./page.js";
import { onPhone, showTab } from "./tabs.js";

const CARDS = ":scope > article[data-seq]";
const CONTROLS = "a[href], button, input, select, textarea, summary, [tabindex]:not(article)";

let current = null;  // the id of the card the reader last reached (null: the newest)

// --- the decisions, on plain values ---

// Where a key moves the cursor among count cards from the one at index at: the arrow keys one
// card, Home and End to the ends, PageUp and PageDown five; -1 for any other key.
export function cardAfterKey(key, at, count) {
  if (!count) { return -1; }
  const steps = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1, PageDown: 5, PageUp: -5 };
  if (key === "Home") { return 0; }
  if (key === "End") { return count - 1; }
  if (!(key in steps)) { return -1; }
  return Math.min(count - 1, Math.max(0, at + steps[key]));
}

// Whether "/" typed on target goes to the message box: not in a field, not with a modifier.
export function slashGoesToBox(key, inField, modified, allowed) {
  return key === "/" && !inField && !modified && allowed;
}

// --- the page ---

function cards() {
  const el = log();
  return el ? Array.prototype.slice.call(el.querySelectorAll(CARDS)) : [];
}

function inField(el) {
  if (!el || !el.tagName) { return false; }
  return el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].indexOf(el.tagName) >= 0;
}

// A card's controls out of the tab order, or back in it (opened).
function setControls(card, open) {
  card.querySelectorAll(CONTROLS).forEach(function (el) {
    if (open) {
      if (el.hasAttribute("data-rove")) {
        const kept = el.getAttribute("data-rove");
        if (kept) { el.setAttribute("tabindex", kept); } else { el.removeAttribute("tabindex"); }
        el.removeAttribute("data-rove");
      }
    } else if (!el.hasAttribute("data-rove")) {
      el.setAttribute("data-rove", el.getAttribute("tabindex") || "");
      el.setAttribute("tabindex", "-1");
    }
  });
  card.classList.toggle("open", open);
}

// The log's one tab stop: the card last reached (else the newest); every other card and every
// card's controls out of the tab order. After every change to the log.
export function rove() {
  const all = cards();
  const el = log();
  if (!el) { return; }
  let stop = current ? document.getElementById(current) : null;
  if (!stop || all.indexOf(stop) < 0) { stop = all[all.length - 1] || null; }
  all.forEach(function (card) {
    card.setAttribute("tabindex", card === stop ? "0" : "-1");
    if (!card.classList.contains("open") || card !== stop) { setControls(card, false); }
  });
  // With no card to stop on, the log itself is the stop (it scrolls: keyboard users reach it).
  if (stop) { el.removeAttribute("tabindex"); } else { el.setAttribute("tabindex", "0"); }
}

function reach(card) {
  current = card.id;
  rove();
  card.focus();
}

// The message box, brought forward (on a phone it is on the log's tab).
export function focusBox() {
  const box = document.getElementById("composer-text");
  if (!box) { return false; }
  if (onPhone()) { showTab("log", true); }
  box.focus();
  return true;
}

// Out of the message box, to the log's card (else the log).
export function focusLog() {
  if (onPhone()) { showTab("log", true); }
  rove();
  const all = cards();
  const stop = all.filter(function (c) { return c.getAttribute("tabindex") === "0"; })[0];
  const target = stop || log();
  if (target) { target.focus(); }
}

function focusRoll() {
  const tool = document.getElementById("tab-roll");
  if (!tool) { return false; }
  showTab("roll", true);
  tool.setAttribute("tabindex", "-1");
  tool.focus();
  return true;
}

function onLogKey(evt, card) {
  if (evt.target === card) {
    if (evt.key === "Enter") {
      const first = card.querySelector(CONTROLS);
      if (!first) { return; }
      evt.preventDefault();
      setControls(card, true);
      first.focus();
      return;
    }
    const all = cards();
    const next = cardAfterKey(evt.key, all.indexOf(card), all.length);
    if (next < 0) { return; }
    evt.preventDefault();
    reach(all[next]);
  } else if (evt.key === "Escape") {
    evt.preventDefault();
    setControls(card, false);
    card.focus();
  }
}

export function listen() {
  document.addEventListener("click", function (evt) {
    const skip = evt.target.closest ? evt.target.closest("a[data-skip]") : null;
    if (!skip) { return; }
    const done = skip.getAttribute("data-skip") === "roll" ? focusRoll() : focusBox();
    if (done) { evt.preventDefault(); }
  });

  document.addEventListener("keydown", function (evt) {
    const modified = evt.ctrlKey || evt.metaKey || evt.altKey;
    const allowed = document.body.getAttribute("data-slash-key") !== "0";
    if (slashGoesToBox(evt.key, inField(evt.target), modified, allowed) && focusBox()) {
      evt.preventDefault();
      return;
    }
    const card = evt.target.closest ? evt.target.closest("#scene-log > article[data-seq]") : null;
    if (card && !modified) { onLogKey(evt, card); }
  });

  // A card reached by a click or a tap is the log's stop too; leaving an opened card closes it.
  document.addEventListener("focusin", function (evt) {
    const card = evt.target.closest ? evt.target.closest("#scene-log > article[data-seq]") : null;
    if (card && current !== card.id) { current = card.id; rove(); }
  });
  document.addEventListener("focusout", function (evt) {
    const card = evt.target.closest ? evt.target.closest("#scene-log > article.open") : null;
    if (card && !(evt.relatedTarget && card.contains(evt.relatedTarget))) { setControls(card, false); }
  });
}
