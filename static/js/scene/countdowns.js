// A plot point spend's cancel window: count down to when it takes effect, the bar shrinking
// from the window's start (data-opens-at) to its end (data-closes-at); at zero the card's
// cancel buttons are disabled.

// A countdown at now (ms since the epoch), from its data-closes-at and data-opens-at texts: the
// whole seconds left (rounded up: "1" until the window closes, then 0), and its bar (none when
// closesAt is no date): max and value in seconds, the window's length when its start is known
// and before its end (else what is left, at least a millisecond), and the words read out.
export function countdownAt(closesAt, opensAt, now) {
  const closes = Date.parse(closesAt);
  const leftMs = Math.max(0, closes - now);
  const left = Math.ceil(leftMs / 1000);
  const opens = Date.parse(opensAt || "");
  let bar = null;
  if (!isNaN(closes)) {
    let total = isNaN(opens) ? 0 : closes - opens;
    if (total <= 0) { total = Math.max(leftMs, 1); }
    bar = {
      max: total / 1000,
      value: Math.min(leftMs, total) / 1000,
      text: left + " second" + (left === 1 ? "" : "s") + " left"
    };
  }
  return { left: left, bar: bar, closed: left === 0 };
}

export function tickCountdowns() {
  document.querySelectorAll(".countdown[data-closes-at]").forEach(function (el) {
    const at = countdownAt(el.getAttribute("data-closes-at"), el.getAttribute("data-opens-at"), Date.now());
    const seconds = el.querySelector(".seconds");
    if (seconds) { seconds.textContent = String(at.left); }
    const bar = el.querySelector("progress");
    if (bar && at.bar) {
      bar.max = at.bar.max;
      bar.value = at.bar.value;
      bar.setAttribute("aria-valuetext", at.bar.text);
    }
    if (at.closed) {
      el.classList.add("closing");
      const card = el.closest("article");
      if (card) {
        card.querySelectorAll("form[data-not-for] button").forEach(function (b) { b.disabled = true; });
      }
    }
  });
}

export function startCountdowns() {
  tickCountdowns();
  window.setInterval(tickCountdowns, 250);  // often enough for the bar to shrink smoothly
}
