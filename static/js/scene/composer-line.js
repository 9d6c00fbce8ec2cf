// The composer's line, sent as a command: read by the parser (static/js/composer.js, a classic
// script that sets window.TabletopComposer), its help or error shown under the box, cleared
// once the server has it; Enter sends, Shift+Enter breaks the line, ArrowUp recalls the last
// line sent, the box grows with what is typed.

import { scene } from "./page.js";
import { make, retry, stuck, waitingLine } from "./commands.js";

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

function composerStatus(kind, lines) {
  const status = document.getElementById("composer-status");
  if (!status) { return; }
  status.textContent = "";
  if (kind === "error") {
    const p = document.createElement("p");
    p.className = "error";
    p.textContent = lines[0];
    status.appendChild(p);
  } else if (kind === "help") {
    const ul = document.createElement("ul");
    lines.forEach(function (line) {
      const li = document.createElement("li");
      li.textContent = line;
      ul.appendChild(li);
    });
    // The dice reference: every spelling, each with an example that rolls.
    const reference = status.getAttribute("data-dice-reference");
    if (reference) {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = reference;
      a.target = "_blank";
      a.rel = "noopener";
      a.textContent = "The dice reference: every spelling, with examples";
      li.appendChild(a);
      ul.appendChild(li);
    }
    status.appendChild(ul);
  }
}

function submitComposer(form) {
  const box = form.querySelector("textarea[name='text']");
  if (!box || !window.TabletopComposer) { return; }
  const root = scene();
  const result = window.TabletopComposer.parse(box.value, {
    members: members(),
    me: parseInt((root && root.getAttribute("data-user")) || "0", 10)
  });
  const status = lineStatus(result);
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
  make(result.frame, form, text, function (answer) { lineAnswered(form, text, answer); });
}

// The line is cleared once the server has it (recorded or refused by the rules: the error
// says why, and the text stays to be fixed), and only if the box still holds that line.
function lineAnswered(form, text, answer) {
  const box = form && form.querySelector("textarea[name='text']");
  if (!box || answer.error) { return; }
  history.push(text);
  recalled = -1;
  if (box.value === text) {
    box.value = "";
    fitComposer(box);
  }
}

function fitComposer(box) {
  box.style.height = "";  // CSSOM, which the CSP allows (no style attribute in the markup)
  if (box.scrollHeight > box.clientHeight) { box.style.height = box.scrollHeight + 2 + "px"; }
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
      composerStatus("", []);
    }
  });

  document.addEventListener("input", function (evt) {
    if (evt.target && evt.target.id === "composer-text") { fitComposer(evt.target); }
  });
}
