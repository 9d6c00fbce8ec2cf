// The read mark (tabletop/notify): while this scene page is visible it tells the server how far
// it has shown the scene's log, every 15 s and whenever new cards arrive; hidden, it says so
// once. The server counts a member at the table while a visible page of theirs said so lately.
const HEARTBEAT_MS = 15000;
const root = document.querySelector("[data-seen-url]");
const log = document.getElementById("scene-log");

function csrfToken() {
  try {
    return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"] || "";
  } catch (error) {
    return "";
  }
}

function newest() {
  let seq = 0;
  log.querySelectorAll("[data-seq]").forEach(function (card) {
    const value = parseInt(card.getAttribute("data-seq") || "", 10);
    if (value > seq) { seq = value; }
  });
  return seq;
}

let sentSeq = -1;
let sentAt = 0;

function report(force) {
  const visible = document.visibilityState === "visible";
  const seq = newest();
  const now = Date.now();
  if (visible && !force && seq === sentSeq && now - sentAt < HEARTBEAT_MS) { return; }
  if (visible) { sentSeq = seq; sentAt = now; }
  const body = new URLSearchParams({ seq: String(visible ? seq : sentSeq < 0 ? 0 : sentSeq), visible: visible ? "1" : "0" });
  fetch(root.getAttribute("data-seen-url"), {
    method: "POST",
    body: body,
    headers: { "X-CSRFToken": csrfToken() },
    credentials: "same-origin",
    keepalive: true,
  }).then(function (response) { return response.ok ? response.json() : null; })
    .then(function (said) { if (said) { showUnseen(said.unseen); } })
    .catch(function () { /* the next heartbeat tries again */ });
}

// The header's Notifications count, as the server counts it after this page's read mark: what
// this page shows is seen, so its count goes (and a mention elsewhere shows up) without a reload.
function showUnseen(count) {
  const link = document.getElementById("nav-notifications");
  if (!link || typeof count !== "number") { return; }
  let badge = link.querySelector(".unread-count");
  if (count > 0) {
    if (!badge) {
      badge = document.createElement("small");
      badge.className = "badge unread-count";
      link.append(" ", badge);
    }
    badge.textContent = String(count);
    link.setAttribute("aria-label", "Notifications, " + count + " new");
  } else {
    link.textContent = "Notifications";
    link.removeAttribute("aria-label");
  }
}

if (root && log) {
  document.addEventListener("visibilitychange", function () { report(true); });
  let pending = null;
  new MutationObserver(function () {
    if (pending === null) {
      pending = setTimeout(function () { pending = null; report(false); }, 1000);
    }
  }).observe(log, { childList: true });
  setInterval(function () { report(false); }, HEARTBEAT_MS);
  report(true);
}
