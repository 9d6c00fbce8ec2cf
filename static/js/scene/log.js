// The log: the seq cursor (the newest card this page has, said in each hello), anchored at the
// bottom while the reader is there, "N new" when they are not, "you missed N events" after a
// reconnect, an empty place for a card changed in place that this page never had, and the
// newest card's gist at the top of the Roll tool.

import { log } from "./page.js";

let lastSeq = 0;
let stickToBottom = true;
let unread = 0;
let replayFrom = null;  // the seq this page had when its socket came back
let replayUntil = 0;
let cameLive = [];  // the seqs of the cards that came live since then

// The log's cards, as the page adds them (its direct children with a seq).
const CARDS = ":scope > [data-seq]";

// --- the decisions, on plain values: seqs as the cards' data-seq texts ---

// The newest seq: seq, or a newer one among seqTexts (a text that is no number counts for none).
export function newestSeq(seq, seqTexts) {
  return seqTexts.reduce(function (newest, text) {
    const n = parseInt(text, 10);
    return n > newest ? n : newest;
  }, seq);
}

// How many of seqTexts are newer than seq.
export function countAfter(seqTexts, seq) {
  return seqTexts.filter(function (text) { return parseInt(text, 10) > seq; }).length;
}

// Where the first of seqTexts newer than seq stands (-1: none is).
export function firstAfter(seqTexts, seq) {
  for (let i = 0; i < seqTexts.length; i += 1) {
    if (parseInt(seqTexts[i], 10) > seq) { return i; }
  }
  return -1;
}

// The seqs a frame's cards make live on this page (cards: {seq, live, present} each, seq the
// card's data-seq text, live its "live" class, present whether the page has it already): in a
// live frame, every card this page has not had yet, the new one the server marks live and one
// it changed that this page never had (a secret roll revealed), which it renders unmarked; in
// a replayed frame, none.
export function liveArrivals(cards) {
  if (!cards.some(function (card) { return card.live; })) { return []; }
  return cards
    .filter(function (card) { return !card.present; })
    .map(function (card) { return parseInt(card.seq, 10); })
    .filter(function (seq) { return !isNaN(seq); });
}

// The cards missed while away among seqTexts (the log's, in its order): newer than the cursor
// from and not come live (cameLive: their seqs). [how many, where the first stands (-1: none)].
export function missedAmong(seqTexts, from, cameLive) {
  let count = 0;
  let first = -1;
  seqTexts.forEach(function (text, i) {
    const n = parseInt(text, 10);
    if (!(n > from) || cameLive.indexOf(n) >= 0) { return; }
    if (first < 0) { first = i; }
    count += 1;
  });
  return [count, first];
}

// The reader is at the bottom of the log, within 40 px of it.
export function atBottom(scrollTop, clientHeight, scrollHeight) {
  return scrollTop + clientHeight >= scrollHeight - 40;
}

// The "N new" count once added cards arrived: they count only while the reader is away from
// the bottom (at it, they are in view).
export function unreadAfter(unread, added, stickToBottom) {
  return added && !stickToBottom ? unread + added : unread;
}

export function missedWords(count) {
  return "You missed " + count + " event" + (count === 1 ? "" : "s") + " while reconnecting";
}

// The newest card's gist: "#<seq> <its text on one line>".
export function gistOf(seqText, text) {
  return "#" + seqText + " " + text.replace(/\s+/g, " ").trim();
}

function seqsOf(cards) {
  return Array.prototype.map.call(cards, function (card) { return card.getAttribute("data-seq"); });
}

export function seq() { return lastSeq; }

// The page as rendered: the seq it was rendered at, and every card's.
export function startCursor(root) {
  lastSeq = parseInt(root.getAttribute("data-last-seq") || "0", 10);
  noteSeq(log());
}

export function noteSeq(root) {
  lastSeq = newestSeq(lastSeq, seqsOf((root || document).querySelectorAll("[data-seq]")));
}

// --- anchored at the bottom while the reader is there; "N new" when they are not ---

function showUnread() {
  const pill = document.getElementById("new-pill");
  if (!pill) { return; }
  pill.hidden = unread === 0;
  const count = pill.querySelector(".count");
  if (count) { count.textContent = String(unread); }
}

export function scrollLog() {
  const el = log();
  if (el && stickToBottom) { el.scrollTop = el.scrollHeight; }
}

// What you send, you see arrive.
export function follow() { stickToBottom = true; }

function toBottom() {
  stickToBottom = true;
  unread = 0;
  showUnread();
  scrollLog();
}

// Cards that arrived since the reader last saw the bottom of the log (only cards: a changed
// card swapped in place is not news).
export function countArrivals(before) {
  const el = log();
  if (!el) { return; }
  unread = unreadAfter(unread, countAfter(seqsOf(el.querySelectorAll(CARDS)), before), stickToBottom);
  showUnread();
}

export function watchScroll() {
  const el = log();
  if (!el) { return; }
  el.addEventListener("scroll", function () {
    stickToBottom = atBottom(el.scrollTop, el.clientHeight, el.scrollHeight);
    if (stickToBottom) { unread = 0; showUnread(); }
  });
}

export function listen() {
  document.addEventListener("click", function (evt) {
    if (evt.target.closest && evt.target.closest("#new-pill")) { toBottom(); }
    // A tapped inline roll opens its breakdown (:focus): Safari does not focus a tapped button.
    const roll = evt.target.closest ? evt.target.closest("#scene-log .inline-roll") : null;
    if (roll) { roll.focus(); }
  });
}

// --- after a reconnect: "you missed N events", above the first card replayed ---

// How long after the socket reopened a card that did not come live still counts as replayed.
// Live cards are told apart by their own mark (liveArrivals), not by this window; it stays as
// an upper bound for the rest: the reconnect's replay follows its hello at once, and a card
// replayed later comes from another catch-up (a message lost on the layer, the heartbeat),
// not "while reconnecting".
const REPLAY_WINDOW_MS = 3000;

export function expectReplay() {
  replayFrom = lastSeq;
  replayUntil = Date.now() + REPLAY_WINDOW_MS;
  cameLive = [];
}

// Where the cards missed while away start (the cursor when the socket reopened), or null once
// the replay's window is over: the reconnect's replay is done by then.
export function replayCursor(from, until, now) {
  return from !== null && now <= until ? from : null;
}

// A frame's cards, before htmx swaps it in: its new card (in the log's beforeend wrapper) and
// the cards it changes in place (its top-level ones).
export function frameCards(message) {
  const frame = document.createElement("template");
  frame.innerHTML = message;
  const cards = [];
  Array.prototype.forEach.call(frame.content.children, function (top) {
    const group = top.id === "scene-log" ? Array.prototype.slice.call(top.children) : [top];
    group.forEach(function (card) {
      if (card.hasAttribute("data-seq")) { cards.push(card); }
    });
  });
  return cards;
}

// While a replay may come in: note which of a frame's cards come live. Before the frame is
// swapped in (and before makeRoomForCards), so a card's first arrival decides: a live card that
// a later frame changes in place (rendered unmarked then) stays live, a replayed card that a
// live frame changes stays missed.
export function noteLive(message) {
  if (replayFrom === null || typeof message !== "string" || message.indexOf("data-seq") < 0) {
    return;
  }
  const cards = frameCards(message).map(function (card) {
    return {
      seq: card.getAttribute("data-seq"),
      live: card.classList.contains("live"),
      present: !!(card.id && document.getElementById(card.id))
    };
  });
  cameLive = cameLive.concat(liveArrivals(cards));
}

export function markMissed() {
  replayFrom = replayCursor(replayFrom, replayUntil, Date.now());
  if (replayFrom === null) { cameLive = []; return; }
  const el = log();
  if (!el) { return; }
  const cards = el.querySelectorAll(CARDS);
  const [missed, at] = missedAmong(seqsOf(cards), replayFrom, cameLive);
  if (!missed) { return; }
  const first = cards[at];
  let marker = document.getElementById("missed-marker");
  if (!marker) {
    marker = document.createElement("p");
    marker.id = "missed-marker";
    marker.className = "missed-marker";
    marker.setAttribute("role", "status");
  }
  if (marker.nextElementSibling !== first) { el.insertBefore(marker, first); }
  marker.textContent = missedWords(missed);
}

// A frame may change a card in place ("morph") that this page never had: a GM's secret roll
// revealed to players who had nothing of it, or a changed card replayed after a reconnect.
// Such a card gets an empty place in the log in seq order first, which the morph then fills
// (without one, htmx would drop it: htmx:oobErrorNoTarget). The server decides what a viewer
// may see; this only decides where it goes.
export function makeRoomForCards(message) {
  const el = log();
  if (!el || typeof message !== "string" || message.indexOf('hx-swap-oob="morph"') < 0) { return; }
  frameCards(message).forEach(function (card) {
    const seq = parseInt(card.getAttribute("data-seq") || "", 10);
    if (card.getAttribute("hx-swap-oob") !== "morph" || !card.id || isNaN(seq) ||
        document.getElementById(card.id)) { return; }
    const place = document.createElement(card.tagName);
    place.id = card.id;
    place.setAttribute("data-seq", String(seq));
    const others = el.querySelectorAll(CARDS);
    const after = firstAfter(seqsOf(others), seq);
    el.insertBefore(place, after < 0 ? null : others[after]);
  });
}

// The newest card's gist at the top of the Roll tool (shown on a phone, where the log is
// behind its own tab): what just happened stays in view beside the roll about to be made.
export function showLatest() {
  const line = document.getElementById("latest-card");
  const el = log();
  if (!line || !el) { return; }
  const cards = el.querySelectorAll(":scope > article[data-seq]");
  const card = cards.length ? cards[cards.length - 1] : null;
  if (!card) { line.textContent = ""; return; }
  const copy = card.cloneNode(true);
  copy.querySelectorAll(".event-meta, form, .commitment, .visually-hidden")
    .forEach(function (n) { n.remove(); });
  line.textContent = gistOf(card.getAttribute("data-seq"), copy.textContent);
}
