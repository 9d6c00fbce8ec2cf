// The live scene page: keeps the seq cursor, says hello on (re)connect so the server replays what
// was missed, handles JSON control frames, verifies revealed commitments, keeps the log anchored.
// No eval, no inline script: loaded from 'self' under a strict CSP.
(function () {
  "use strict";

  function scene() { return document.getElementById("scene"); }
  function log() { return document.getElementById("scene-log"); }

  var lastSeq = 0;
  var stickToBottom = true;

  function noteSeq(root) {
    (root || document).querySelectorAll("[data-seq]").forEach(function (el) {
      var seq = parseInt(el.getAttribute("data-seq"), 10);
      if (seq > lastSeq) { lastSeq = seq; }
    });
  }

  function setStatus(text, state) {
    var el = document.getElementById("connection");
    if (el) { el.textContent = text; el.setAttribute("data-state", state); }
  }

  function hex(buffer) {
    return Array.prototype.map.call(new Uint8Array(buffer), function (b) {
      return b.toString(16).padStart(2, "0");
    }).join("");
  }

  // Commitments as first published, by the element that showed them sealed ("event-12"): a
  // reveal must match what this page saw before, not only the commitment it brings along.
  var sealedCommitments = {};

  function holderOf(el) {
    var holder = el.closest("[id]");
    return holder ? holder.id : "";
  }

  function rememberSealed(root) {
    (root || document).querySelectorAll(".commitment.sealed[data-commitment]").forEach(function (el) {
      var key = holderOf(el);
      if (key && !sealedCommitments[key]) { sealedCommitments[key] = el.getAttribute("data-commitment"); }
    });
  }

  // A revealed secret carries its canonical JSON text and nonce: recompute the commitment.
  function verifyCommitments(root) {
    (root || document).querySelectorAll(".commitment[data-secret]:not([data-checked])").forEach(function (el) {
      el.setAttribute("data-checked", "1");
      var status = el.querySelector(".verify-status");
      var first = sealedCommitments[holderOf(el)];
      if (first && first !== el.getAttribute("data-commitment")) {
        el.classList.add("mismatch");
        if (status) { status.textContent = "⚠ DOES NOT MATCH the commitment published before: this result was altered"; }
        return;
      }
      var text = el.getAttribute("data-secret") + ":" + el.getAttribute("data-nonce");
      if (!window.crypto || !window.crypto.subtle) {
        if (status) { status.textContent = "cannot verify here (needs HTTPS)"; }
        return;
      }
      window.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)).then(function (digest) {
        var ok = hex(digest) === el.getAttribute("data-commitment");
        el.classList.add(ok ? "verified" : "mismatch");
        if (status) {
          status.textContent = ok ? "✔ verified" : "⚠ DOES NOT MATCH the commitment: this result was altered";
        }
      });
    });
  }

  // Spend buttons are rendered once for every player; each page keeps only those meant for its
  // user (the server checks every command anyway).
  function pruneControls(root) {
    var me = (scene() || document.body).getAttribute("data-user");
    (root || document).querySelectorAll("[data-only-for]").forEach(function (el) {
      if (el.getAttribute("data-only-for") !== me) { el.remove(); }
    });
    (root || document).querySelectorAll("[data-not-for]").forEach(function (el) {
      if (el.getAttribute("data-not-for") === me) { el.remove(); }
    });
  }

  // A plot point spend's cancel window: count down to when it takes effect, the bar shrinking
  // from the window's start (data-opens-at) to its end (data-closes-at).
  function tickCountdowns() {
    document.querySelectorAll(".countdown[data-closes-at]").forEach(function (el) {
      var closes = Date.parse(el.getAttribute("data-closes-at"));
      var leftMs = Math.max(0, closes - Date.now());
      var left = Math.ceil(leftMs / 1000);
      var seconds = el.querySelector(".seconds");
      if (seconds) { seconds.textContent = String(left); }
      var bar = el.querySelector("progress");
      var opens = Date.parse(el.getAttribute("data-opens-at") || "");
      if (bar && !isNaN(closes)) {
        var total = isNaN(opens) ? 0 : closes - opens;
        if (total <= 0) { total = Math.max(leftMs, 1); }
        bar.max = total / 1000;
        bar.value = Math.min(leftMs, total) / 1000;
        bar.setAttribute("aria-valuetext", left + " second" + (left === 1 ? "" : "s") + " left");
      }
      if (left === 0) {
        el.classList.add("closing");
        var card = el.closest("article");
        if (card) {
          card.querySelectorAll("form[data-not-for] button").forEach(function (b) { b.disabled = true; });
        }
      }
    });
  }

  function scrollLog() {
    var el = log();
    if (el && stickToBottom) { el.scrollTop = el.scrollHeight; }
  }

  // An option may fill in another field of its form: data-sets="difficulty:7" (a foe picked on
  // a roll panel sets the difficulty the roll is made against, and the field shows it). An
  // option without it gives the field back to the player.
  function applyPickedValues(select) {
    var form = select.form;
    if (!form) { return; }
    var option = select.options[select.selectedIndex];
    var spec = option ? option.getAttribute("data-sets") : null;
    form.querySelectorAll("[data-set-by='" + select.name + "']").forEach(function (field) {
      field.readOnly = false;
      field.removeAttribute("data-set-by");
    });
    if (!spec) { return; }
    var at = spec.indexOf(":");
    var field = form.elements.namedItem(spec.slice(0, at));
    if (!field || !("value" in field)) { return; }
    field.value = spec.slice(at + 1);
    field.readOnly = true;
    field.setAttribute("data-set-by", select.name);
    field.dispatchEvent(new Event("input", { bubbles: true }));
  }

  document.addEventListener("change", function (evt) {
    var target = evt.target;
    if (target && target.tagName === "SELECT" && target.querySelector("option[data-sets]")) {
      applyPickedValues(target);
    }
  });

  document.addEventListener("DOMContentLoaded", function () {
    var root = scene();
    if (!root) { return; }
    lastSeq = parseInt(root.getAttribute("data-last-seq") || "0", 10);
    noteSeq(log());
    pruneControls(document);
    rememberSealed(document);
    verifyCommitments(document);
    scrollLog();
    tickCountdowns();
    window.setInterval(tickCountdowns, 250);  // often enough for the bar to shrink smoothly
    var el = log();
    if (el) {
      el.addEventListener("scroll", function () {
        stickToBottom = el.scrollTop + el.clientHeight >= el.scrollHeight - 40;
      });
    }
  });

  document.body.addEventListener("htmx:wsOpen", function (evt) {
    setStatus("live", "open");
    evt.detail.socketWrapper.send(JSON.stringify({ command: "hello", last_seq: lastSeq }), evt.detail.elt);
  });
  document.body.addEventListener("htmx:wsClose", function () { setStatus("reconnecting…", "closed"); });
  document.body.addEventListener("htmx:wsError", function () { setStatus("connection trouble", "error"); });

  document.body.addEventListener("htmx:wsBeforeMessage", function (evt) {
    var message = evt.detail.message;
    if (typeof message === "string" && message.charAt(0) === "{") {
      evt.preventDefault();  // a control frame, not HTML
      var control = JSON.parse(message);
      if (control.type === "reload") { window.location.reload(); }
      if (control.type === "ended") { setStatus("session ended: log in again", "ended"); }
    }
  });

  document.body.addEventListener("htmx:wsAfterMessage", function () {
    pruneControls(document);
    rememberSealed(document);
    tickCountdowns();
    noteSeq(log());
    verifyCommitments(document);
    scrollLog();
  });

  // Earlier entries of a long log, loaded on demand: the same care as live cards (controls not
  // meant for this user, sealed commitments, verification), without scrolling away.
  document.body.addEventListener("htmx:afterSettle", function () {
    var el = log();
    if (!el) { return; }
    pruneControls(el);
    rememberSealed(el);
    verifyCommitments(el);
  });

  // Clear the previous error once the player acts again.
  document.body.addEventListener("htmx:wsConfigSend", function () {
    var errors = document.getElementById("scene-errors");
    if (errors) { errors.innerHTML = ""; }
  });
})();
