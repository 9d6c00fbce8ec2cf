// The table's socket: htmx-ext-ws's, reconnected fast, or at once on "Retry now"; the
// connection's word in the header; frames out on an open socket only.

import { scene } from "./page.js";

// Reconnects: the first retry within half a second, then never more than 4 s apart while the
// server is away, so a page is live within 5 s of its return (htmx-ext-ws's own delay grows to
// 64 s: a table back up stayed dead for half a minute), each wait jittered so a restarted
// server is not met by every page at once.
const RECONNECT_FIRST_MS = 500;
const RECONNECT_CAP_MS = 4000;
// Close codes the extension reconnects after (abnormal, server error, restart, try later).
const RECONNECTS_AFTER = [1006, 1011, 1012, 1013];
// A server process that is stopping (a restart, a rolling deploy) closes with 1012: another
// process is serving, so the page reconnects at once, within RESTART_SPREAD_MS (spread so
// every page of the stopped process does not arrive in the same instant), not after the
// extension's backoff.
const SERVICE_RESTART = 1012;
const RESTART_SPREAD_MS = 250;
// A socket's readyState, by the standard's numbers (named here: Node, which runs this module's
// tests, has no WebSocket before version 22).
const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;

let htmxApi = null;  // htmx's internal API, handed to extensions: it holds the socket's wrapper
let guarded = null;  // the extension's socket wrapper, once its retry timer is guarded
let connectNow = null;  // that wrapper's own connect

// The wait before retry number retryCount (0 the first), in ms: a ceiling doubling from
// RECONNECT_FIRST_MS up to RECONNECT_CAP_MS, the wait a random point (random in [0, 1)) of its
// upper half.
export function reconnectDelay(retryCount, random) {
  const ceiling = Math.min(RECONNECT_CAP_MS, RECONNECT_FIRST_MS * Math.pow(2, retryCount));
  return ceiling / 2 + random * (ceiling / 2);
}

// The wait before reconnecting after a close (detail: the close's), in ms, when it is sooner
// than the extension's own retry: a stopping server's 1012, within RESTART_SPREAD_MS; else null.
export function reconnectAtOnce(detail, random) {
  const code = detail && detail.event ? detail.event.code : null;
  return code === SERVICE_RESTART ? random * RESTART_SPREAD_MS : null;
}

// Before htmx processes the page (scene.js says why that holds for a module).
export function defineTableSocket() {
  if (!window.htmx) { return; }
  window.htmx.config.wsReconnectDelay = function (retryCount) {
    return reconnectDelay(retryCount, Math.random());
  };
  window.htmx.defineExtension("table-socket", { init: function (api) { htmxApi = api; } });
}

// The connection's life: offline once the socket closed and until it opens again (not while it
// connects at load); an open after an earlier one is a reconnect, which replays what was missed.
export function connectionLife() {
  let offline = false;
  let wasOpen = false;
  return {
    offline: function () { return offline; },
    opened: function () {  // true when it had been open before
      offline = false;
      const reopened = wasOpen;
      wasOpen = true;
      return reopened;
    },
    closed: function () { offline = true; }
  };
}

const life = connectionLife();

export function isOffline() { return life.offline(); }

// "Retry now" shows beside the header's word while the socket is down.
export function retryNowShown(state) { return state === "closed" || state === "error"; }

// The connection's word in the header; "Retry now" beside it while the socket is down.
export function setStatus(text, state) {
  const el = document.getElementById("connection");
  if (el) { el.textContent = text; el.setAttribute("data-state", state); }
  const now = document.getElementById("reconnect-now");
  if (now) { now.hidden = !retryNowShown(state); }
}

// The words for a session that ended ("logged out", "removed"...): what to say, then the way
// back, a link to log in that returns to this scene.
export function endedWords(reason) {
  const why = reason === "removed" ? "you were removed from this campaign" : reason;
  return "Session ended" + (why ? " (" + why + ")" : "") + ": ";
}

// The server closes the socket of a session that ended with this code (its "ended" frame first).
export const SESSION_ENDED = 4401;

// Why the session ended ("" when the server did not say), once it has; null while it lasts.
let endedReason = null;

export function sessionEnded() { return endedReason; }

// A close that says the session ended: its code, whatever frame came before it.
export function endsSession(detail) {
  return !!(detail && detail.event && detail.event.code === SESSION_ENDED);
}

// The way back: a link to log in, which brings the player back here (the link's address is the
// page's own, #connection's data-login-url).
export function loginLink(text) {
  const el = document.getElementById("connection");
  const link = document.createElement("a");
  link.href = (el && el.getAttribute("data-login-url")) || "/accounts/login/";
  link.textContent = text;
  return link;
}

// The session ended: the header says why and links the login page. It stays: no reconnect, and
// the page sends nothing more (commands.js refuses what is made from now on, saying so).
export function showEnded(reason) {
  if (endedReason === null) { endedReason = reason || ""; }
  const el = document.getElementById("connection");
  if (!el) { return; }
  el.replaceChildren(document.createTextNode(endedWords(endedReason)), loginLink("log in again"));
  el.setAttribute("data-state", "ended");
  const now = document.getElementById("reconnect-now");
  if (now) { now.hidden = true; }
}

// The header's word once the socket closed (shownState: the word's state until then; detail:
// the close's, with its event): none after "session ended", which stays; "reconnecting…"
// after a close the extension retries, a close without its event among them (abnormal).
export function closeWord(shownState, detail) {
  if (shownState === "ended") { return null; }
  const code = detail && detail.event ? detail.event.code : 1006;
  return RECONNECTS_AFTER.indexOf(code) >= 0 ? "reconnecting…" : "disconnected";
}

// The extension's retry timer, made harmless: the wrapper's init (its connect, which that timer
// calls) connects only while no socket of its own is connecting or open. Returns the wrapper's
// own connect, for "Retry now".
export function guardRetries(wrapper) {
  const connect = wrapper.init;
  wrapper.init = function () {
    const state = this.socket ? this.socket.readyState : CLOSED;
    if (state !== CONNECTING && state !== OPEN) { connect.call(this); }
  };
  return connect;
}

// The extension keeps its socket in a wrapper among htmx's data on #scene, and after a close
// retries on a timer nothing can cancel. "Retry now" connects at once, so that timer must then
// do nothing: it would close the new socket, or open a second one (every frame twice).
function connection() {
  const root = scene();
  const wrapper = htmxApi && root ? htmxApi.getInternalData(root).webSocket : null;
  if (wrapper && wrapper !== guarded) {
    guarded = wrapper;
    connectNow = guardRetries(wrapper);
  }
  return wrapper || null;
}

export function isOpen() {
  const wrapper = connection();
  return !!(wrapper && wrapper.socket && wrapper.socket.readyState === OPEN);
}

// Frames go out on an open socket only: the extension would queue one sent while closed and
// send it on the next open, beside the page's own resend of unanswered commands.
export function transmit(text, elt) {
  if (!isOpen()) { return false; }
  connection().send(text, elt || scene());
  return true;
}

export function reconnectNow() {
  const wrapper = connection();
  const state = wrapper && wrapper.socket ? wrapper.socket.readyState : OPEN;
  if (state === CLOSING || state === CLOSED) { connectNow.call(wrapper); }
}

// The socket (re)opened: true when it had been open before (a reconnect, not the first connect).
export function opened() {
  const reopened = life.opened();
  setStatus("live", "open");
  return reopened;
}

export function closed(evt) {
  life.closed();
  if (endsSession(evt.detail)) { showEnded(endedReason || ""); }  // its frame may not have come
  const status = document.getElementById("connection");
  const word = status ? closeWord(status.getAttribute("data-state"), evt.detail) : null;
  if (word) { setStatus(word, "closed"); }
  const soon = endedReason === null ? reconnectAtOnce(evt.detail, Math.random()) : null;
  if (soon !== null) { setTimeout(reconnectNow, soon); }
}

export function troubled() {
  if (!isOpen()) { setStatus("connection trouble", "error"); }
}

export function listen() {
  document.addEventListener("click", function (evt) {
    if (evt.target.closest && evt.target.closest("#reconnect-now")) { reconnectNow(); }
  });
}
