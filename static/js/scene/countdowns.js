// A plot point spend's cancel window: count down to when it takes effect, the bar shrinking
// from the window's start (data-opens-at) to its end (data-closes-at); at zero the card's
// cancel buttons are disabled.

export function tickCountdowns() {
  document.querySelectorAll(".countdown[data-closes-at]").forEach(function (el) {
    const closes = Date.parse(el.getAttribute("data-closes-at"));
    const leftMs = Math.max(0, closes - Date.now());
    const left = Math.ceil(leftMs / 1000);
    const seconds = el.querySelector(".seconds");
    if (seconds) { seconds.textContent = String(left); }
    const bar = el.querySelector("progress");
    const opens = Date.parse(el.getAttribute("data-opens-at") || "");
    if (bar && !isNaN(closes)) {
      let total = isNaN(opens) ? 0 : closes - opens;
      if (total <= 0) { total = Math.max(leftMs, 1); }
      bar.max = total / 1000;
      bar.value = Math.min(leftMs, total) / 1000;
      bar.setAttribute("aria-valuetext", left + " second" + (left === 1 ? "" : "s") + " left");
    }
    if (left === 0) {
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
