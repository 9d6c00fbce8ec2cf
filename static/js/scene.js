// The live scene page, as ES modules (static/js/scene/, one concern each; no build step). This
// entry defines the page's htmx extensions, starts each concern in order, and routes the
// socket's events to them: it keeps the seq cursor, says hello on (re)connect so the server
// replays what was missed (and marks what was), handles JSON control frames, verifies revealed
// commitments, keeps the log anchored with a "N new" pill, switches the tool tabs, sends the
// composer's line (parsed by composer.js), keeps every roll form on the table-wide roll mode
// and fills one from a rollable number of the Sheet tool. Every command it sends is kept until
// the server answers it, sent again after a reconnect, never twice.
// No eval, no inline script: loaded from 'self' under a strict CSP (<script type="module">).
//
// When this runs: a module script is deferred, and runs in document order with the classic
// defer scripts (htmx and its ws extension in base.html, idiomorph and composer.js before it,
// a game system's scripts after it), once the page is parsed and before DOMContentLoaded
// (which waits for every module it imports). htmx processes the page (hx-ext, ws-connect) on
// DOMContentLoaded, from a listener it added when it ran, before this: so the extensions
// defined below, and the reconnect delay, are in place before htmx reads hx-ext or opens the
// socket, with no classic script for them; and this page's own start-up still runs on
// DOMContentLoaded, after htmx's. The modules import one another without a cycle: the
// manifest storage (tabletop/static_storage.py) names each by its hash, an import cycle
// could never settle.

import { defineTableMorph } from "./scene/morph.js";
import * as socket from "./scene/socket.js";
import * as page from "./scene/page.js";
import * as log from "./scene/log.js";
import * as tabs from "./scene/tabs.js";
import * as head from "./scene/head.js";
import * as rollForms from "./scene/roll-forms.js";
import * as odds from "./scene/odds.js";
import * as sheet from "./scene/sheet.js";
import * as commands from "./scene/commands.js";
import * as confirm from "./scene/confirm.js";
import * as composerLine from "./scene/composer-line.js";
import * as speaking from "./scene/speaking.js";
import * as latency from "./scene/latency.js";
import * as keys from "./scene/keys.js";
import * as announce from "./scene/announce.js";
import { pruneControls } from "./scene/own-controls.js";
import { rememberSealed, verifyCommitments } from "./scene/commitments.js";
import { startCountdowns, tickCountdowns } from "./scene/countdowns.js";

defineTableMorph();
socket.defineTableSocket();

// The page's own listeners, in the order the single script added them.
tabs.listen();
head.listen();
log.listen();
rollForms.listen();
sheet.listen();
confirm.listen();  // before commands: a "no" makes no command
commands.listen(rollForms.rolled);
socket.listen();
odds.listen();
composerLine.listen();
speaking.listen();
keys.listen();

// --- start-up ---

document.addEventListener("DOMContentLoaded", function () {
  const root = page.scene();
  if (!root) { return; }
  log.startCursor(root);
  pruneControls(document);
  rememberSealed(document);
  verifyCommitments(document);
  tabs.restoreTab();
  rollForms.restoreTableMode();
  composerLine.restoreDraft();
  speaking.restoreSpeaker();
  rollForms.applyTableMode(document);
  rollForms.followCharacters(document);
  log.scrollLog();
  log.showLatest();
  announce.nameCards();
  keys.rove();
  startCountdowns();
  log.watchScroll();
  tabs.watchLayout();
});

document.addEventListener("DOMContentLoaded", sheet.startSheet);

// --- the scene opening or closing ---
// Its frame morphs in the header's badge, the composer and the Roll and Sheet tools with their
// tabs (tools.render_scene_status): the tabs are laid out again, the new forms start from the
// table's roll mode, the sheet shows the one picked before.

let sceneStatus = null;

function statusNow() {
  const badge = document.getElementById("scene-status");
  return badge ? badge.getAttribute("data-status") : null;
}

document.addEventListener("DOMContentLoaded", function () { sceneStatus = statusNow(); });

// A line half typed when the scene closed goes with the composer's box; it is kept here and
// put back when the scene opens again (this page), so nothing typed is lost.
let unsent = "";

document.body.addEventListener("htmx:oobBeforeSwap", function (evt) {
  const target = evt.detail && evt.detail.target;
  const box = target && target.id === "composer" ? document.getElementById("composer-text") : null;
  if (box && box.value) { unsent = box.value; }
});

function followStatus() {
  const now = statusNow();
  if (now === sceneStatus) { return; }
  sceneStatus = now;
  tabs.retab();
  rollForms.restoreTableMode();
  rollForms.applyTableMode(document);
  sheet.startSheet();
  speaking.restoreSpeaker();
  const box = document.getElementById("composer-text");
  if (box && unsent && !box.value) { box.value = unsent; unsent = ""; }
}

// --- the socket's events ---

document.body.addEventListener("htmx:wsOpen", function (evt) {
  if (socket.opened()) { log.expectReplay(); }
  socket.transmit(JSON.stringify({ command: "hello", last_seq: log.seq() }), evt.detail.elt);
  commands.resendAll();  // every unanswered command again, in order, with its cid
  odds.refreshOdds();
  latency.ping();
});
window.setInterval(latency.ping, latency.PING_EVERY_MS);

// The session ended (its frame, or the socket's 4401 close): nothing more is sent; what waits
// is refused where it was made, and the composer's line is kept for the page after the login.
function sessionEnded() {
  commands.sessionEndedNow();
  composerLine.keepDraft();
}

document.body.addEventListener("htmx:wsClose", function (evt) {
  socket.closed(evt);
  if (socket.sessionEnded() !== null) { sessionEnded(); } else { commands.showWaiting(); }
});
document.body.addEventListener("htmx:wsError", socket.troubled);

document.body.addEventListener("htmx:wsBeforeMessage", function (evt) {
  const message = evt.detail.message;
  if (typeof message === "string" && message.charAt(0) === "{") {
    evt.preventDefault();  // a control frame, not HTML
    const control = JSON.parse(message);
    if (control.type === "done") { commands.answered(control); }
    if (control.type === "pong") { latency.measured(control.t); }
    if (control.type === "reload") { window.location.reload(); }
    if (control.type === "ended") { socket.showEnded(control.reason); sessionEnded(); }
  }
});

let seqBefore = 0;
document.body.addEventListener("htmx:wsBeforeMessage", function (evt) {
  seqBefore = log.seq();
  log.noteLive(evt.detail.message);  // before makeRoomForCards: it adds cards to the page
  announce.noteFrame(evt.detail.message);
  log.makeRoomForCards(evt.detail.message);
});

document.body.addEventListener("htmx:wsAfterMessage", function () {
  followStatus();
  latency.paintOwnRtt();  // a new presence list: this page's own time is the freshest
  pruneControls(document);
  announce.speakArrivals();  // once the controls and lines not meant for this member are gone
  keys.rove();
  rememberSealed(document);
  tickCountdowns();
  log.noteSeq(page.log());
  verifyCommitments(document);
  log.countArrivals(seqBefore);
  log.markMissed();
  log.scrollLog();
  log.showLatest();
});

// Earlier entries of a long log, loaded on demand: the same care as live cards (controls not
// meant for this user, sealed commitments, verification), without scrolling away.
document.body.addEventListener("htmx:afterSettle", function () {
  const el = page.log();
  if (!el) { return; }
  pruneControls(el);
  announce.nameCards(el);
  keys.rove();
  rememberSealed(el);
  verifyCommitments(el);
});
