// Commands, each made once: every command the page sends (a form over the socket, the
// composer's line) carries an id, "cid", and is kept until the server answers it: done (also
// "repeat": that cid was recorded already), refused (the error says why; the form or the line
// stays as the user left it), or "retry" (the server could not answer in time). Unanswered, it
// shows "sending…", and past ANSWER_WITHIN_MS "not sent" with Retry and Cancel. A closed
// socket forgets none: after the next hello each goes again, in order, with its cid (the
// server records a cid once per scene and sender) and "again" (so a repeat is found before
// its own first run could refuse it: a benny already spent). A roll form sends one roll until
// it is answered (a double click is one roll). Once the session has ended (logged out, signed
// out elsewhere: the server closed the socket, 4401) nothing is sent: a command made then, or
// still waiting, is refused at once where it was made, saying why, with a link to log in again.

import { follow } from "./log.js";
import { pickedSpeaker, withSpeaker } from "./speaking.js";
import {
  endedWords, isOffline, isOpen, loginLink, reconnectNow, sessionEnded, transmit
} from "./socket.js";

const ANSWER_WITHIN_MS = 8000;
const QUIET_MS = 500;  // an answer within this needs no "sending…"
const commands = [];  // unanswered, in the order they were made
let madeCount = 0;
let pageId = null;  // drawn at the first command: importing this module needs no window

// --- a command's life, decided on plain values (a command: its record below) ---

// The server records an id once per scene and sender, and answers a second command with
// the same id as a repeat: so ids must not collide between a player's tabs (two tabs
// opened in the same millisecond count from 1 alike). A random part makes them unique:
// the page's random bytes, in hex.
export function pageIdOf(bytes) {
  return Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
}

// The made-th command of a page (1 the first): "<page id>-<made, base 36>".
export function commandIdOf(page, made) { return page + "-" + made.toString(36); }

function commandId() {
  if (pageId === null) { pageId = pageIdOf(window.crypto.getRandomValues(new Uint8Array(6))); }
  madeCount += 1;
  return commandIdOf(pageId, madeCount);
}

// The frame a command goes out as: marked "again" once an earlier try went out (the server
// then finds it a repeat before its own first run could refuse it), never on its first.
export function frameOf(command) {
  return command.tries ? Object.assign({}, command.frame, { again: true }) : command.frame;
}

// A command (re)sent: a try only if it went out (transmitted; a closed socket sends nothing),
// "sending" from now, shown at once while the table is away (offline), else only if slow.
export function sending(command, transmitted, offline, now) {
  if (transmitted) { command.tries += 1; }
  command.state = "sending";
  command.since = now;
  command.shown = offline;
  return command;
}

// "Not sent", and why: the server's word, else what the page knows.
export function unsent(command, why, offline) {
  command.state = "unsent";
  command.why = why || (offline ? "the table is reconnecting; it goes once it is back."
    : "no answer from the table's server yet.");
  return command;
}

// What a command waiting since command.since is due at now: "unsent" past ANSWER_WITHIN_MS,
// "shown" ("sending…") past QUIET_MS, else nothing; a command shown "not sent" waits for the user.
export function overdue(command, now) {
  if (command.state !== "sending") { return null; }
  if (now - command.since >= ANSWER_WITHIN_MS) { return "unsent"; }
  if (!command.shown && now - command.since >= QUIET_MS) { return "shown"; }
  return null;
}

// The command a "done" frame answers (none: the user cancelled it), and what the answer makes
// of it: "unsent" when the server could not answer in time (retry), else "done" (recorded, a
// repeat, or refused: its error says why).
export function answerFor(list, answer) {
  const command = byCid(list, answer.cid);
  return command ? { command: command, outcome: answer.retry ? "unsent" : "done" } : null;
}

export function byCid(list, cid) { return list.filter(function (c) { return c.cid === cid; })[0] || null; }

// The composer's line waiting for its answer, if that text is one.
export function byText(list, text) { return list.filter(function (c) { return c.text === text; })[0] || null; }

// The command a form made with this frame (its key), if it is still waiting: pressed again, it
// is that command again, not a second.
export function byFormAndKey(list, form, key) {
  return list.filter(function (c) { return c.form === form && c.key === key; })[0];
}

// What a press of a form's button does while the form's own command waits (same: that
// command, none: nothing waits, key: the frame pressed now): "new" when nothing waits; "retry"
// when the same frame waits stuck (the table away, or "not sent": the user asks again);
// else "wait": a roll form rolls once until its answer comes (a double click is one roll, and
// a changed form pressed again while one roll is on its way is not a second roll).
export function pressAgain(same, key, stuckNow) {
  if (!same) { return "new"; }
  return same.key === key && stuckNow ? "retry" : "wait";
}

// The command a form made that is still waiting, if any.
export function byForm(list, form) { return list.filter(function (c) { return c.form === form; })[0] || null; }

// A command's label, from the composer's line: in quotes, on one line, cut at 40 characters.
export function lineLabel(text) {
  const line = text.replace(/\s+/g, " ").trim();
  return "“" + (line.length > 40 ? line.slice(0, 39) + "…" : line) + "”";
}

// A command's label, from the name of the button that made it.
export function buttonLabel(name) { return name.replace(/\s+/g, " ").trim() || "Your action"; }

// --- the page's commands ---

function find(cid) { return byCid(commands, cid); }

// The composer's line still waiting for its answer, if that text is one.
export function waitingLine(text) { return byText(commands, text); }

function clearErrors() {
  const errors = document.getElementById("scene-errors");
  if (errors) { errors.innerHTML = ""; }
}

// A new command: frame is what is sent (its cid added here), form where it was made, text the
// composer's line (none for a form), done(answer) what to do once the server answered it.
// False when it was refused at once: the session has ended, and the page sends nothing more.
export function make(frame, form, text, done) {
  if (sessionEnded() !== null) {
    showEnded({ form: form, label: labelOf(form, text) });
    return false;
  }
  clearErrors();
  follow();  // what you send, you see arrive
  const command = {
    key: JSON.stringify(frame), form: form, text: text, label: labelOf(form, text), tries: 0, done: done
  };
  frame.cid = command.cid = commandId();
  command.frame = frame;
  commands.push(command);
  send(command);
  return true;
}

// The session ended: every command still waiting is forgotten (the server takes nothing more
// from this page) and shown refused where it was made; its form or line stays as it was.
export function sessionEndedNow() {
  commands.slice().forEach(function (command) {
    forget(command);
    showEnded(command);
  });
}

// "<label> not sent. Session ended (why): log in again", where the command was made; one such
// line per place, the newest.
function showEnded(command) {
  const box = boxFor(command);
  if (!box) { return; }
  box.querySelectorAll(".command-line[data-state='ended']").forEach(function (old) { old.remove(); });
  const line = document.createElement("p");
  line.className = "command-line";
  line.setAttribute("data-state", "ended");
  line.setAttribute("role", "alert");
  const what = document.createElement("strong");
  what.textContent = command.label;
  line.append(what, " not sent. " + endedWords(sessionEnded()), loginLink("log in again"),
    " (the page keeps what you typed).");
  box.appendChild(line);
}

function send(command) {
  const transmitted = transmit(JSON.stringify(frameOf(command)), command.form);
  sending(command, transmitted, isOffline(), Date.now());
  showCommand(command);
}

// Retry: the same command (its cid) again, and the connection at once if it is down.
export function retry(command) {
  send(command);
  if (!isOpen()) { reconnectNow(); }
}

// Stuck: the table away (offline), or shown "not sent". Pressed again, such a command is retried.
export function isStuck(command, offline) { return offline || command.state === "unsent"; }

export function stuck(command) { return isStuck(command, isOffline()); }

// After the hello of a (re)opened socket: every unanswered command again, in order, with its cid.
export function resendAll() { commands.forEach(send); }

// The socket closed: nothing unanswered is forgotten, each shows it is waiting for the table.
export function showWaiting() {
  commands.forEach(function (command) {
    if (!command.shown) { command.shown = true; showCommand(command); }
  });
}

// A "done" frame.
export function answered(answer) {
  const match = answerFor(commands, answer);
  if (!match) { return; }  // cancelled by the user
  const command = match.command;
  if (match.outcome === "unsent") { return notSent(command, answer.error); }
  forget(command);
  if (command.done) { command.done(answer); }
}

function notSent(command, why) {
  unsent(command, why, isOffline());
  showCommand(command);
}

function forget(command) {
  commands.splice(commands.indexOf(command), 1);
  if (command.line) { command.line.remove(); }
}

function watchAnswers() {
  window.setInterval(function () {
    const now = Date.now();
    commands.forEach(function (command) {
      const due = overdue(command, now);
      if (due === "unsent") {
        notSent(command, null);
      } else if (due === "shown") {
        command.shown = true;
        showCommand(command);
      }
    });
  }, 250);
}

// A command's state shows where it was made: under the composer for a line, in a roll
// form's action bar for its roll, else under the scene's header (a card's or a tool's button).
function boxFor(command) {
  const form = command.form;
  if (form && form.id === "composer") { return document.getElementById("composer-pending"); }
  const bar = form && form.isConnected ? form.querySelector(".roll-actions .command-state") : null;
  return bar || document.getElementById("pending-commands");
}

function labelOf(form, text) {
  if (text !== undefined) { return lineLabel(text); }
  if (form && form.classList.contains("roll-form")) { return "Roll"; }
  const button = form && form.querySelector("button");
  return buttonLabel(button ? button.getAttribute("aria-label") || button.textContent : "");
}

function showCommand(command) {
  const line = command.line || (command.line = document.createElement("p"));
  const box = boxFor(command);
  if (box && line.parentNode !== box) { box.appendChild(line); }
  const hadFocus = line.contains(document.activeElement);
  const unsent = command.state === "unsent";
  line.className = "command-line";
  line.setAttribute("data-state", unsent ? "unsent" : "sending");
  line.hidden = !unsent && !command.shown;
  line.textContent = "";
  const what = document.createElement("strong");
  what.textContent = command.label;
  line.append(what, unsent ? " not sent: " + command.why + " " : " sending…");
  if (unsent) {
    line.append(commandButton("Retry", command, "retry"), " ", commandButton("Cancel", command, "cancel"));
  }
  if (hadFocus) { focusOrigin(command); }
}

function commandButton(text, command, action) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = action === "retry" ? "small" : "small secondary outline";
  button.textContent = text;
  button.setAttribute("aria-label", text + " " + command.label);
  button.setAttribute("data-command-" + action, command.cid);
  return button;
}

// Retry or Cancel takes its button away: the focus goes back to where the command was made.
function focusOrigin(command) {
  const form = command.form;
  if (!form || !form.isConnected) { return; }
  const target = form.querySelector(form.id === "composer" ? "textarea" : "button[type='submit'], button");
  if (target) { target.focus(); }
}

// formDone(form): what a form's command does once answered without an error (a roll form
// goes back to the table's mode).
export function listen(formDone) {
  watchAnswers();

  document.addEventListener("click", function (evt) {
    const el = evt.target.closest ? evt.target.closest("[data-command-retry], [data-command-cancel]") : null;
    if (!el) { return; }
    const command = find(el.getAttribute("data-command-retry") || el.getAttribute("data-command-cancel"));
    if (!command) { return; }
    if (el.hasAttribute("data-command-retry")) { retry(command); return; }
    forget(command);  // the line and the form stay as the user left them
    focusOrigin(command);
  });

  // A form sent over the socket (a roll form, a procedure's form, a card's button) is made a
  // command here and sent by the page, not by the extension (whose queue would send it again).
  document.body.addEventListener("htmx:wsConfigSend", function (evt) {
    const form = evt.detail && evt.detail.elt;
    if (!form || !evt.detail.parameters || (evt.detail.errors && evt.detail.errors.length)) { return; }
    evt.preventDefault();
    // A roll form's roll goes as the speaker picked beside the message box.
    const frame = withSpeaker(Object.assign({}, evt.detail.parameters), pickedSpeaker());
    // Pressed again while its command waits: the same command again if it is stuck (the table
    // away, or "not sent"); else a roll form sends nothing (a double click is one roll), and
    // another form (a card's or a tool's button: a GM's "+1" pressed twice means two) a second.
    const key = JSON.stringify(frame);
    const rollForm = form.classList && form.classList.contains("roll-form");
    const same = rollForm ? byForm(commands, form) : byFormAndKey(commands, form, key);
    const press = pressAgain(same, key, same ? stuck(same) : false);
    if (press === "retry") { retry(same); return; }
    if (press === "wait" && rollForm) { return; }
    // The error frame says why it was refused; the form stays as the user left it.
    make(frame, form, undefined, function (answer) { if (!answer.error) { formDone(form); } });
  });
}
