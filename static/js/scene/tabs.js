// The tool tabs: Roll, Party, In play, GM beside the log; on a phone, Log too, at the bottom.
// The tab a page showed is remembered for the scene (this browser tab); a tool that changed
// while another is showing gets a dot on its tab.

import { recall, remember, sceneKey } from "./page.js";
import { scrollLog } from "./log.js";

// The phone layout (scene.css's breakpoint): one tool at a time, the log one of them. Looked
// up at first use: importing the tabs' logic needs no window.
let phoneQuery = null;
let sideTab = null;  // the tool showing beside the log on a desktop

function phoneLayout() {
  if (!phoneQuery) { phoneQuery = window.matchMedia("(max-width: 899.98px)"); }
  return phoneQuery;
}

export function onPhone() { return phoneLayout().matches; }

// --- the decisions, on plain values ---

// The tab to show, of the page's tab names: the one named if the page has it, else the log.
// Beside the log on a desktop (side), the tool last shown (else the first tool); marked
// selected, the tab showing on a phone, the tool beside the log on a desktop.
// A tool the page no longer has (the scene closed: no Roll) gives way like a tab never shown.
export function chooseTab(names, name, side, phone) {
  if (names.indexOf(name) < 0) { name = "log"; }
  if (side && names.indexOf(side) < 0) { side = null; }
  if (name !== "log") { side = name; }
  if (!side) { side = names.filter(function (n) { return n !== "log"; })[0] || null; }
  return { name: name, side: side, selected: phone ? name : side };
}

// Where an arrow key, Home or End moves among count visible tabs from the one at index at (-1:
// that tab is hidden): round the ends; -1 for any other key.
export function tabAfterKey(key, at, count) {
  if (key === "Home") { return 0; }
  if (key === "End") { return count - 1; }
  if (key !== "ArrowRight" && key !== "ArrowLeft") { return -1; }
  return (at + (key === "ArrowRight" ? 1 : -1) + count) % count;
}

// A tool is in view: not hidden, and on a phone only while the log is not the tab.
export function toolInView(hidden, phone, tab) { return !hidden && (!phone || tab !== "log"); }

function layout() { return document.querySelector(".table-layout"); }

function tabKey() { return sceneKey("scene-tab"); }

function tabs() { return Array.prototype.slice.call(document.querySelectorAll(".tab-bar [role='tab']")); }

export function showTab(name, keep) {
  const grid = layout();
  if (!grid) { return; }
  const buttons = tabs();
  const names = buttons.map(function (b) { return b.getAttribute("data-tab"); });
  const choice = chooseTab(names, name, sideTab, onPhone());
  name = choice.name;
  sideTab = choice.side;
  grid.setAttribute("data-tab", name);
  const selected = choice.selected;
  buttons.forEach(function (b) {
    const tab = b.getAttribute("data-tab");
    const on = tab === selected;
    b.setAttribute("aria-selected", on ? "true" : "false");
    b.tabIndex = on ? 0 : -1;
    if (on) { b.classList.remove("updated"); }
    const tool = document.getElementById(b.getAttribute("aria-controls"));
    if (tool && tab !== "log") { tool.hidden = tab !== sideTab; }
  });
  if (keep) { remember("sessionStorage", tabKey(), name); }
  if (name === "log") { scrollLog(); }
  paneStop();
}

// The tools' pane scrolls: it is a tab stop of its own only while the tool showing has no
// control to reach (its controls take the keyboard there, one stop fewer on the way to Roll).
const CONTROL = "a[href], button:not([disabled]), input:not([type='hidden']), select, textarea, summary";

function paneStop() {
  const pane = document.querySelector(".side-pane");
  if (!pane) { return; }
  const tool = Array.prototype.filter.call(pane.querySelectorAll("[role='tabpanel']"), function (t) {
    return !t.hidden;
  })[0];
  if (tool && tool.querySelector(CONTROL)) { pane.removeAttribute("tabindex"); } else { pane.setAttribute("tabindex", "0"); }
}

function currentTab() {
  const grid = layout();
  return grid ? grid.getAttribute("data-tab") : "log";
}

// The tab this page showed last (else the log).
export function restoreTab() {
  showTab(recall("sessionStorage", tabKey()) || "log", false);
}

// The scene opened or closed: its Roll and Sheet tabs came or went. The tab showing stays if
// the page still has it, and beside the log stands what a fresh page would put there.
export function retab() {
  sideTab = null;
  showTab(currentTab(), false);
}

// Turned from a phone's layout to a desktop's, or back: the same tab, laid out anew.
export function watchLayout() {
  phoneLayout().addEventListener("change", function () { showTab(currentTab(), false); });
}

// A tool that changed while another tab is showing gets a dot on its tab.
function flagUpdated(target) {
  const tool = target && target.closest ? target.closest("[role='tabpanel']") : null;
  if (!tool || tool.id === "tab-log") { return; }
  if (toolInView(tool.hidden, onPhone(), currentTab())) { return; }
  const button = document.querySelector(".tab-bar [aria-controls='" + tool.id + "']");
  if (button) { button.classList.add("updated"); }
}

export function listen() {
  document.addEventListener("click", function (evt) {
    const button = evt.target.closest ? evt.target.closest(".tab-bar [role='tab']") : null;
    if (button) { showTab(button.getAttribute("data-tab"), true); }
    const link = evt.target.closest ? evt.target.closest("[data-tab-link]") : null;
    if (link) { showTab(link.getAttribute("data-tab-link"), true); }
  });

  document.addEventListener("keydown", function (evt) {
    const button = evt.target.closest ? evt.target.closest(".tab-bar [role='tab']") : null;
    if (!button || (evt.key !== "ArrowRight" && evt.key !== "ArrowLeft" && evt.key !== "Home" && evt.key !== "End")) { return; }
    const visible = tabs().filter(function (b) { return b.offsetParent !== null; });
    const next = tabAfterKey(evt.key, visible.indexOf(button), visible.length);
    evt.preventDefault();
    visible[next].focus();
    showTab(visible[next].getAttribute("data-tab"), true);
  });

  // A tool's part swapped in while its tab is hidden: flag the tab.
  // (An outerHTML swap's detail.target is the element it replaced, out of the page by now; the
  // event fires on what was swapped in. A morph keeps the element, detail.target.)
  document.body.addEventListener("htmx:oobAfterSwap", function (evt) {
    // Who is connected is not news worth a dot (a page's own arrival would set it).
    [evt.target, evt.detail && evt.detail.target].forEach(function (el) {
      if (el && el.isConnected && !el.closest("#scene-log, #presence")) { flagUpdated(el); }
    });
  });
}
