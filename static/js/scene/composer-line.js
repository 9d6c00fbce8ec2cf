// The composer's line, sent as a command: read by the parser (static/js/composer.js, a classic
// script that sets window.TabletopComposer), its error shown under the box (the parser's, or the
// server's refusal) until the next line is said, cleared once the server has it; /help in a
// panel over the page that leaves the log as it was; Enter sends, Shift+Enter breaks the line,
// ArrowUp recalls the last line sent, the box grows with what is typed. A line the page could
// not send because the session ended stays in the box, and is kept in this tab (a draft) for
// the page the login brings back.

import { me, recall, remember, scene, sceneKey } from "./page.js";
import { make, retry, stuck, waitingLine } from "./commands.js";
import { pickedSpeaker, withSpeaker } from "./speaking.js";
import { focusLog } from "./keys.js";

const history = [];  // the lines sent, for ArrowUp
let recalled = -1;

// --- the decisions, on plain values ---

// What the parser's result (composer.js's parse) puts under the box, as { kind, lines }: its
// error, its help, or an error for a frame the server would not answer; kind "" (nothing
// shown) when the line is to be sent.
export function lineStatus(result) {
  if (result.error) { return { kind: "error", lines: [result.error] }; }
  if (result.help) { return { kind: "help", lines: result.help }; }
  if (!result.frame.command) { return { kind: "error", lines: ["That line could not be sent."] }; }
  return { kind: "", lines: [] };
}

// ArrowUp in an empty box, of count lines sent: the last one first (recalled -1: none yet),
// then each one before it, stopping at the first.
export function recallAt(recalled, count) { return recalled < 0 ? count - 1 : Math.max(0, recalled - 1); }

function members() {
  const data = document.getElementById("table-members");
  try { return data ? JSON.parse(data.textContent) : []; } catch (e) { return []; }
}

// The names the Speaking-as choice offers (the member's characters; the GM's NPCs too).
function speakers() {
  const picker = document.getElementById("speaking-as");
  if (!picker) { return []; }
  return Array.from(picker.options).map(function (o) { return o.value; }).filter(Boolean);
}

// The error under the box (kind "error"), or nothing. Help is not shown here: a long list
// under the box took the log's height, down to a strip (showHelp).
// The box is marked invalid while an error stands under it (its aria-describedby reads it).
function composerStatus(kind, lines) {
  const status = document.getElementById("composer-status");
  if (!status) { return; }
  status.textContent = "";
  const box = document.getElementById("composer-text");
  if (box) {
    if (kind === "error") { box.setAttribute("aria-invalid", "true"); } else { box.removeAttribute("aria-invalid"); }
  }
  if (kind === "error") {
    const p = document.createElement("p");
    p.className = "error";
    p.textContent = lines[0];
    status.appendChild(p);
  }
}

// /help: the list in its panel (#composer-help, a popover: over the page, closed by its Close
// button, Escape or a click elsewhere), the log left as it was under it.
function showHelp(lines) {
  const panel = document.getElementById("composer-help");
  const list = panel && panel.querySelector("ul");
  if (!list) { return; }
  list.textContent = "";
  lines.forEach(function (line) {
    const li = document.createElement("li");
    li.textContent = line;
    list.appendChild(li);
  });
  if (panel.showPopover && !panel.matches(":popover-open")) { panel.showPopover(); }
}

// A server's refusal of a line sits under the box, beside the text it refused; the same words
// under the page's header (the error frame) go, so they are not said twice.
function showRefusal(message) {
  composerStatus("error", [message]);
  const errors = document.getElementById("scene-errors");
  if (errors && errors.textContent.trim() === message) { errors.textContent = ""; }
}

// A line said: any error still shown for an earlier line is old news (a refusal can arrive
// after the next line went), under the box and under the header alike.
function clearRefusals() {
  composerStatus("", []);
  const errors = document.getElementById("scene-errors");
  if (errors) { errors.textContent = ""; }
}

// The member's own: whoever logs in next on this tab gets it back only if it is them.
function draftKey() { return sceneKey("composer-draft") + ":" + me(); }

// The session ended: the line in the box is kept for the page after the login.
export function keepDraft() {
  const box = document.getElementById("composer-text");
  if (box && box.value.trim()) { remember("sessionStorage", draftKey(), box.value); }
}

// A line kept when the session ended, back in the box of the page the login brought back.
export function restoreDraft() {
  const box = document.getElementById("composer-text");
  const draft = recall("sessionStorage", draftKey());
  if (!box || !draft) { return; }
  if (!box.value) { box.value = draft; fitComposer(box); }
  try { window.sessionStorage.removeItem(draftKey()); } catch (e) { /* private mode */ }
}

function submitComposer(form) {
  const box = form.querySelector("textarea[name='text']");
  if (!box || !window.TabletopComposer) { return; }
  const root = scene();
  const picked = document.getElementById("table-mode");
  const result = window.TabletopComposer.parse(box.value, {
    members: members(),
    speakers: speakers(),
    me: parseInt((root && root.getAttribute("data-user")) || "0", 10),
    mode: picked ? picked.value : null  // /r rolls in the mode picked under the box
  });
  const status = lineStatus(result);
  if (status.kind === "help") {
    composerStatus("", []);
    showHelp(status.lines);
    box.value = "";  // read: the box is free for the next line
    fitComposer(box);
    return;
  }
  composerStatus(status.kind, status.lines);
  if (status.kind) { return; }
  // The same line on its way is not sent twice: a second Enter only retries it when it is
  // stuck (the table away, or shown "not sent").
  const waiting = waitingLine(box.value);
  if (waiting) {
    if (stuck(waiting)) { retry(waiting); }
    return;
  }
  const text = box.value;
  withSpeaker(result.frame, pickedSpeaker());  // as the picker says, unless the line said (/as, /ooc)
  const made = make(result.frame, form, text, function (answer) { lineAnswered(form, text, answer); });
  if (!made) { keepDraft(); }  // the session ended: refused at once, the line kept
}

// The line is cleared once the server has it (recorded), and only if the box still holds that
// line; refused by the rules, its error shows under the box and the text stays to be fixed.
function lineAnswered(form, text, answer) {
  const box = form && form.querySelector("textarea[name='text']");
  if (!box) { return; }
  if (answer.error) { showRefusal(answer.error); return; }
  clearRefusals();
  history.push(text);
  recalled = -1;
  if (box.value === text) {
    box.value = "";
    fitComposer(box);
  }
}

// The line's length against the server's limit, once it is near (from 80%): "912 / 1,000
// characters", so a long line's bound shows before it is sent; "" below that.
export function lengthWords(length, limit) {
  if (!(limit > 0) || length < limit * 0.8) { return ""; }
  return length.toLocaleString("en") + " / " + limit.toLocaleString("en") + " characters";
}

function fitComposer(box) {
  box.style.height = "";  // CSSOM, which the CSP allows (no style attribute in the markup)
  if (box.scrollHeight > box.clientHeight) { box.style.height = box.scrollHeight + 2 + "px"; }
  const count = document.getElementById("composer-count");
  if (count) {
    const length = [...box.value].length;  // code points, as the server counts (Python's len)
    const limit = parseInt(box.getAttribute("data-limit"), 10);
    count.textContent = lengthWords(length, limit);
    count.hidden = !count.textContent;
    count.classList.toggle("over", length > limit);
  }
}

export function listen() {
  document.addEventListener("submit", function (evt) {
    const form = evt.target;
    if (form && form.id === "composer") {
      evt.preventDefault();
      submitComposer(form);
    }
  });

  document.addEventListener("keydown", function (evt) {
    const box = evt.target;
    if (!box || box.id !== "composer-text") { return; }
    if (evt.key === "Enter" && !evt.shiftKey && !evt.isComposing) {
      evt.preventDefault();
      submitComposer(box.form);
    } else if (evt.key === "ArrowUp" && !box.value && history.length) {
      evt.preventDefault();
      recalled = recallAt(recalled, history.length);
      box.value = history[recalled];
    } else if (evt.key === "Escape") {
      // First the help or the error under the box goes; with nothing there, the box is left
      // for the log (and its cards' keys).
      const help = document.getElementById("composer-help");
      const status = document.getElementById("composer-status");
      if (help && help.matches(":popover-open")) {
        help.hidePopover();
      } else if (status && status.textContent.trim()) {
        composerStatus("", []);
      } else {
        evt.preventDefault();
        focusLog();
      }
    }
  });

  // The help closed (its Close button, a click elsewhere): the focus it had goes back to the box.
  document.addEventListener("toggle", function (evt) {
    if (!evt.target || evt.target.id !== "composer-help" || evt.newState !== "closed") { return; }
    const active = document.activeElement;
    if (!active || active === document.body || evt.target.contains(active)) {
      const box = document.getElementById("composer-text");
      if (box) { box.focus(); }
    }
  }, true);

  document.addEventListener("input", function (evt) {
    if (evt.target && evt.target.id === "composer-text") { fitComposer(evt.target); }
  });
}
