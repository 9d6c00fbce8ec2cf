// What a screen reader says of the table: each new live card in one line, in #announcer (a
// polite log kept apart from the scene log, which is no live region). Only a card the server
// marks live and this page did not have is spoken: never the history the page opened on,
// earlier entries, a reconnect's replay, a card changed in place or who is connected. Each
// card's line is written for the ear on the server (its ".spoken" line, from this viewer's own
// card: a stub speaks only the stub), else the card's words without its number, time,
// breakdown and controls; every card is named by its line, for the log's keyboard cursor.
// The member chooses what is spoken (their account page): everything, their own (their
// results, whispers to them, a turn handed to them, a line that mentions them) or nothing.
// "Your turn" is in every choice but nothing: the server writes it first in the turn's line
// for the members the turn is handed to (templates/scenes/events/turn_spoken.html).

import { log, me } from "./page.js";
import { frameCards } from "./log.js";

// A spoken line's limit (tabletop/scenes/spoken.py's), and how many lines the announcer keeps.
export const LIMIT = 119;
const KEPT = 20;

let pending = [];  // the seqs of the live cards the frame being swapped in brings

// --- the decisions, on plain values ---

// Whether to speak a card, by the member's choice (setting: "all", "mine" or "none"). card:
// { mine: the member's own, ownChat: their own chat line (they know what they said),
//   whisperToMe: a whisper from someone else, forMe: a turn handed to them or a line that
//   mentions them (the server marks the card: data-for-me) }.
export function shouldSpeak(setting, card) {
  if (setting === "none" || card.ownChat) { return false; }
  if (setting === "mine") { return card.mine || card.whisperToMe || card.forMe; }
  return true;
}

// A line on one line, cut at LIMIT characters at a word.
export function shortLine(text) {
  const line = String(text || "").replace(/\s+/g, " ").trim();
  if (line.length <= LIMIT) { return line; }
  const cut = line.slice(0, LIMIT - 1);
  const at = cut.lastIndexOf(" ");
  return (at > 0 ? cut.slice(0, at) : cut).replace(/[,:;]$/, "") + "…";
}

// --- the page ---

// What of a card is not for the ear: its number and time, the dice drawn, the odds, spends,
// the commitment and its controls.
const NOT_SPOKEN = ".event-meta, .commitment, form, button, select, .spoken, .roll-dice, " +
  ".roll-odds, .spends, .inline-roll-breakdown, .visually-hidden, [aria-hidden='true'], [hidden]";

// A card's line for the ear.
export function lineOf(card) {
  const spoken = card.querySelector(".spoken");
  if (spoken && spoken.textContent.trim()) {
    const line = spoken.cloneNode(true);  // an inline roll in it says its total, not its dice
    line.querySelectorAll(".inline-roll-breakdown, [aria-hidden='true']").forEach(function (n) { n.remove(); });
    return shortLine(line.textContent);
  }
  const copy = card.cloneNode(true);
  copy.querySelectorAll(NOT_SPOKEN).forEach(function (n) { n.remove(); });
  return shortLine(copy.textContent);
}

// Every card named by its line (a card changed in place comes back unnamed: named again).
export function nameCards(root) {
  (root || log() || document).querySelectorAll("article[data-seq]").forEach(function (card) {
    if (!card.hasAttribute("aria-label") && card.children.length) {
      card.setAttribute("aria-label", lineOf(card));
    }
  });
}

function setting() { return document.body.getAttribute("data-announce") || "all"; }

function facts(card) {
  const mine = card.getAttribute("data-actor") === me();
  return {
    mine: mine,
    ownChat: mine && card.classList.contains("event-chat"),
    whisperToMe: !mine && card.hasAttribute("data-whisper"),
    forMe: card.hasAttribute("data-for-me")
  };
}

export function say(line) {
  const region = document.getElementById("announcer");
  if (!region || !line) { return; }
  const p = document.createElement("p");
  p.textContent = line;
  region.appendChild(p);
  while (region.children.length > KEPT) { region.firstElementChild.remove(); }
}

// Before a frame is swapped in: the live cards it brings that this page has not had.
export function noteFrame(message) {
  if (typeof message !== "string" || message.indexOf(" live") < 0) { return; }
  frameCards(message).forEach(function (card) {
    if (!card.classList.contains("live") || !card.id || document.getElementById(card.id)) { return; }
    pending.push(card.id);
  });
}

// Once it is in (and the controls not meant for this member are gone): speak them.
export function speakArrivals() {
  const ids = pending;
  pending = [];
  nameCards();
  ids.forEach(function (id) {
    const card = document.getElementById(id);
    if (card && shouldSpeak(setting(), facts(card))) { say(lineOf(card)); }
  });
}
