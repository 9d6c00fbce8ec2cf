// Latency: each page measures its own round trip over the socket (at once, then every 30 s) and
// reports it with the next ping; the presence list the server sends carries every member's
// (the page paints its own, fresher, after each pong).

import { me, scene } from "./page.js";
import { transmit } from "./socket.js";

// Every 30 s: a presence list shows a round trip, not a live meter, and each ping costs the
// server about what a tenth of a roll does; at 5 s the pings of 100 idle tables took 15% of a
// process's ceiling (bench/README.md, "Idle tables"). The first is reported at once.
export const PING_EVERY_MS = 30000;
let lastRtt = null;

// A ping sent at now: t for its pong to bring back, and the round trip measured last, once
// there is one (0 ms is one).
export function pingFrame(now, rtt) {
  const frame = { command: "ping", t: now };
  if (rtt !== null) { frame.rtt = rtt; }
  return frame;
}

// The round trip of a pong at now, in whole ms, from the t it brings back (none: not a number,
// not a pong of this page's); never below 0.
export function roundTrip(sentAt, now) {
  if (typeof sentAt !== "number") { return null; }
  return Math.max(0, Math.round(now - sentAt));
}

// The presence list's word for a round trip.
export function speedOf(rtt) { return rtt < 150 ? "good" : rtt < 400 ? "fair" : "slow"; }

export function ping() {
  if (document.hidden) { return; }
  transmit(JSON.stringify(pingFrame(performance.now(), lastRtt)));
}

// A pong: it carries the t its ping was sent with.
export function measured(sentAt) {
  const rtt = roundTrip(sentAt, performance.now());
  if (rtt === null) { return; }
  const first = lastRtt === null;
  lastRtt = rtt;
  paintOwnRtt();
  // The first measure goes out at once, not a ping period later: the table sees this
  // member's round trip at the scene's next beat after they connect.
  if (first) { ping(); }
}

export function paintOwnRtt() {
  if (lastRtt === null || !scene()) { return; }
  const el = document.querySelector("#presence [data-rtt-for='" + me() + "']");
  if (!el) { return; }
  el.textContent = lastRtt + " ms";
  el.setAttribute("data-rtt-ms", String(lastRtt));
  el.setAttribute("data-speed", speedOf(lastRtt));
}
