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

let htmxApi = null;  // htmx's internal API, handed to extensions: it holds the socket's wrapper
let offline = false;  // the socket closed and has not opened since (not: connecting at load)
let wasOpen = false;
let guarded = null;  // the extension's socket wrapper, once its retry timer is guarded
let connectNow = null;  // that wrapper's own connect

// Before htmx processes the page (scene.js says why that holds for a module).
export function defineTableSocket() {
  if (!window.htmx) { return; }
  window.htmx.config.wsReconnectDelay = function (retryCount) {
    const ceiling = Math.min(RECONNECT_CAP_MS, RECONNECT_FIRST_MS * Math.pow(2, retryCount));
    return ceiling / 2 + Math.random() * (ceiling / 2);
  };
  window.htmx.defineExtension("table-socket", { init: function (api) { htmxApi = api; } });
}

export function isOffline() { return offline; }

// The connection's word in the header; "Retry now" beside it while the socket is down.
export function setStatus(text, state) {
  const el = document.getElementById("connection");
  if (el) { el.textContent = text; el.setAttribute("data-state", state); }
  const now = document.getElementById("reconnect-now");
  if (now) { now.hidden = state !== "closed" && state !== "error"; }
}

// The extension keeps its socket in a wrapper among htmx's data on #scene, and after a close
// retries on a timer nothing can cancel. "Retry now" connects at once, so that timer must then
// do nothing: it would close the new socket, or open a second one (every frame twice).
function connection() {
  const root = scene();
  const wrapper = htmxApi && root ? htmxApi.getInternalData(root).webSocket : null;
  if (wrapper && wrapper !== guarded) {
    guarded = wrapper;
    connectNow = wrapper.init;
    wrapper.init = function () {
      const state = this.socket ? this.socket.readyState : WebSocket.CLOSED;
      if (state !== WebSocket.CONNECTING && state !== WebSocket.OPEN) { connectNow.call(this); }
    };
  }
  return wrapper || null;
}

export function isOpen() {
  const wrapper = connection();
  return !!(wrapper && wrapper.socket && wrapper.socket.readyState === WebSocket.OPEN);
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
  const state = wrapper && wrapper.socket ? wrapper.socket.readyState : WebSocket.OPEN;
  if (state === WebSocket.CLOSING || state === WebSocket.CLOSED) { connectNow.call(wrapper); }
}

// The socket (re)opened: true when it had been open before (a reconnect, not the first connect).
export function opened() {
  offline = false;
  setStatus("live", "open");
  const reopened = wasOpen;
  wasOpen = true;
  return reopened;
}

export function closed(evt) {
  offline = true;
  const status = document.getElementById("connection");
  if (status && status.getAttribute("data-state") !== "ended") {
    const code = evt.detail && evt.detail.event ? evt.detail.event.code : 1006;
    setStatus(RECONNECTS_AFTER.indexOf(code) >= 0 ? "reconnecting…" : "disconnected", "closed");
  }
}

export function troubled() {
  if (!isOpen()) { setStatus("connection trouble", "error"); }
}

export function listen() {
  document.addEventListener("click", function (evt) {
    if (evt.target.closest && evt.target.closest("#reconnect-now")) { reconnectNow(); }
  });
}
