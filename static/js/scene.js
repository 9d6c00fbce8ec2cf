// The live scene page: keeps the seq cursor, says hello on (re)connect so the server replays what
// was missed (and marks what was), handles JSON control frames, verifies revealed commitments,
// keeps the log anchored with a "N new" pill, switches the tool tabs, sends the composer's line
// (parsed by composer.js) and keeps every roll panel on the table-wide roll mode.
// No eval, no inline script: loaded from 'self' under a strict CSP.
(function () {
  "use strict";

  // Panels pushed live (party, dashboard, procedures) are morphed into place, not replaced, so
  // a panel re-rendered under a player's fingers keeps the focus, the open <details> and what is
  // being typed, and does not eat the click. Only the "morph" style is ours: htmx-ext's own
  // morph extension also claims "beforeend", which would nest the log in itself.
  if (window.htmx && window.Idiomorph) {
    window.htmx.defineExtension("table-morph", {
      isInlineSwap: function (swapStyle) { return swapStyle === "morph"; },
      handleSwap: function (swapStyle, target, fragment) {
        if (swapStyle !== "morph") { return false; }
        return window.Idiomorph.morph(target, fragment.children, {
          morphStyle: "outerHTML",
          callbacks: {
            beforeAttributeUpdated: function (name, node, mutation) {
              // An open <details> (a form someone opened) stays open.
              if (name === "open" && node.tagName === "DETAILS" && mutation === "remove") { return false; }
              // The field being typed in keeps its text. (Idiomorph's ignoreActiveValue would
              // also freeze a focused button's label: the one just clicked.)
              if (name === "value" && node === document.activeElement &&
                  /^(INPUT|TEXTAREA|SELECT)$/.test(node.tagName)) { return false; }
              return true;
            }
          }
        });
      }
    });
  }

  // Reconnects: the first retry within half a second, then never more than 5 s apart while the
  // server is away (htmx-ext-ws's own delay grows to 64 s: a table back up stayed dead for half
  // a minute), each wait jittered so a restarted server is not met by every page at once.
  var RECONNECT_FIRST_MS = 500;
  var RECONNECT_CAP_MS = 5000;
  if (window.htmx) {
    window.htmx.config.wsReconnectDelay = function (retryCount) {
      var ceiling = Math.min(RECONNECT_CAP_MS, RECONNECT_FIRST_MS * Math.pow(2, retryCount));
      return ceiling / 2 + Math.random() * (ceiling / 2);
    };
  }

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

  // --- the log: anchored at the bottom while the reader is there; "N new" when they are not ---

  var unread = 0;

  function atBottom(el) { return el.scrollTop + el.clientHeight >= el.scrollHeight - 40; }

  function showUnread() {
    var pill = document.getElementById("new-pill");
    if (!pill) { return; }
    pill.hidden = unread === 0;
    var count = pill.querySelector(".count");
    if (count) { count.textContent = String(unread); }
  }

  function scrollLog() {
    var el = log();
    if (el && stickToBottom) { el.scrollTop = el.scrollHeight; }
  }

  function toBottom() {
    stickToBottom = true;
    unread = 0;
    showUnread();
    scrollLog();
  }

  // Cards that arrived since the reader last saw the bottom of the log (only cards: a changed
  // card swapped in place is not news).
  function countArrivals(before) {
    var el = log();
    if (!el) { return; }
    var added = 0;
    el.querySelectorAll(":scope > [data-seq]").forEach(function (card) {
      if (parseInt(card.getAttribute("data-seq"), 10) > before) { added += 1; }
    });
    if (added && !stickToBottom) { unread += added; }
    showUnread();
  }

  // --- after a reconnect: "you missed N events", above the first card replayed ---

  var replayFrom = null;  // the seq this page had when its socket came back
  var replayUntil = 0;

  function markMissed() {
    if (replayFrom === null) { return; }
    var el = log();
    if (!el) { return; }
    var missed = [];
    el.querySelectorAll(":scope > [data-seq]").forEach(function (card) {
      if (parseInt(card.getAttribute("data-seq"), 10) > replayFrom) { missed.push(card); }
    });
    if (!missed.length) { return; }
    var marker = document.getElementById("missed-marker");
    if (!marker) {
      marker = document.createElement("p");
      marker.id = "missed-marker";
      marker.className = "missed-marker";
      marker.setAttribute("role", "status");
    }
    if (marker.nextElementSibling !== missed[0]) { el.insertBefore(marker, missed[0]); }
    marker.textContent = "You missed " + missed.length + " event" + (missed.length === 1 ? "" : "s") +
      " while reconnecting";
    if (Date.now() > replayUntil) { replayFrom = null; }
  }

  // --- tabs: Roll, Party, In play, GM beside the log; on a phone, Log too, at the bottom ---

  var phone = window.matchMedia("(max-width: 899.98px)");
  var sideTab = null;  // the tool showing beside the log on a desktop

  function layout() { return document.querySelector(".table-layout"); }

  function tabKey() { return "tabletop:scene-tab:" + ((scene() && scene().getAttribute("data-scene")) || ""); }

  function tabs() { return Array.prototype.slice.call(document.querySelectorAll(".tab-bar [role='tab']")); }

  function showTab(name, remember) {
    var grid = layout();
    if (!grid) { return; }
    var buttons = tabs();
    var names = buttons.map(function (b) { return b.getAttribute("data-tab"); });
    if (names.indexOf(name) < 0) { name = "log"; }
    if (name !== "log") { sideTab = name; }
    if (!sideTab) { sideTab = names.filter(function (n) { return n !== "log"; })[0] || null; }
    grid.setAttribute("data-tab", name);
    var selected = phone.matches ? name : sideTab;
    buttons.forEach(function (b) {
      var tab = b.getAttribute("data-tab");
      var on = tab === selected;
      b.setAttribute("aria-selected", on ? "true" : "false");
      b.tabIndex = on ? 0 : -1;
      if (on) { b.classList.remove("updated"); }
      var panel = document.getElementById(b.getAttribute("aria-controls"));
      if (panel && tab !== "log") { panel.hidden = tab !== sideTab; }
    });
    if (remember) {
      try { window.sessionStorage.setItem(tabKey(), name); } catch (e) { /* private mode */ }
    }
    if (name === "log") { scrollLog(); }
  }

  function currentTab() {
    var grid = layout();
    return grid ? grid.getAttribute("data-tab") : "log";
  }

  // A tool that changed while another tab is showing gets a dot on its tab.
  function flagUpdated(target) {
    var panel = target && target.closest ? target.closest("[role='tabpanel']") : null;
    if (!panel || panel.id === "tab-log") { return; }
    var showing = !panel.hidden && (!phone.matches || currentTab() !== "log");
    if (showing) { return; }
    var button = document.querySelector(".tab-bar [aria-controls='" + panel.id + "']");
    if (button) { button.classList.add("updated"); }
  }

  // The newest card's gist at the top of the Roll tool (shown on a phone, where the log is
  // behind its own tab): what just happened stays in view beside the roll about to be made.
  function showLatest() {
    var line = document.getElementById("latest-card");
    var el = log();
    if (!line || !el) { return; }
    var cards = el.querySelectorAll(":scope > article[data-seq]");
    var card = cards.length ? cards[cards.length - 1] : null;
    if (!card) { line.textContent = ""; return; }
    var copy = card.cloneNode(true);
    copy.querySelectorAll(".event-meta, form, .commitment, .visually-hidden")
      .forEach(function (n) { n.remove(); });
    line.textContent = "#" + card.getAttribute("data-seq") + " " + copy.textContent.replace(/\s+/g, " ").trim();
  }

  document.addEventListener("click", function (evt) {
    var button = evt.target.closest ? evt.target.closest(".tab-bar [role='tab']") : null;
    if (button) { showTab(button.getAttribute("data-tab"), true); }
    var link = evt.target.closest ? evt.target.closest("[data-tab-link]") : null;
    if (link) { showTab(link.getAttribute("data-tab-link"), true); }
    if (evt.target.closest && evt.target.closest("#new-pill")) { toBottom(); }
  });

  document.addEventListener("keydown", function (evt) {
    var button = evt.target.closest ? evt.target.closest(".tab-bar [role='tab']") : null;
    if (!button || (evt.key !== "ArrowRight" && evt.key !== "ArrowLeft" && evt.key !== "Home" && evt.key !== "End")) { return; }
    var visible = tabs().filter(function (b) { return b.offsetParent !== null; });
    var at = visible.indexOf(button);
    var next = evt.key === "Home" ? 0 : evt.key === "End" ? visible.length - 1
      : (at + (evt.key === "ArrowRight" ? 1 : -1) + visible.length) % visible.length;
    evt.preventDefault();
    visible[next].focus();
    showTab(visible[next].getAttribute("data-tab"), true);
  });

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

  // --- the table-wide roll mode: every roll panel starts from it, a panel may differ once ---

  function modeKey() { return "tabletop:roll-mode:" + ((scene() && scene().getAttribute("data-scene")) || ""); }

  function tableMode() {
    var select = document.getElementById("table-mode");
    return select ? select.value : "public";
  }

  function applyTableMode(root) {
    var mode = tableMode();
    (root || document).querySelectorAll("select[data-roll-mode]").forEach(function (select) {
      if (select.querySelector("option[value='" + mode + "']")) { select.value = mode; }
    });
  }

  document.addEventListener("change", function (evt) {
    if (evt.target && evt.target.id === "table-mode") {
      try { window.localStorage.setItem(modeKey(), evt.target.value); } catch (e) { /* private mode */ }
      applyTableMode(document);
    }
  });

  // --- the composer ---

  var socket = null;  // htmx-ext-ws's socket wrapper (it queues while reconnecting)
  var history = [];
  var recalled = -1;

  function members() {
    var data = document.getElementById("table-members");
    try { return data ? JSON.parse(data.textContent) : []; } catch (e) { return []; }
  }

  function composerStatus(kind, lines) {
    var status = document.getElementById("composer-status");
    if (!status) { return; }
    status.textContent = "";
    if (kind === "error") {
      var p = document.createElement("p");
      p.className = "error";
      p.textContent = lines[0];
      status.appendChild(p);
    } else if (kind === "help") {
      var ul = document.createElement("ul");
      lines.forEach(function (line) {
        var li = document.createElement("li");
        li.textContent = line;
        ul.appendChild(li);
      });
      status.appendChild(ul);
    }
  }

  // --- commands the server answers: each gets an id ("cid"), and the server says when it is
  // done with it or why it refused it. Until then the form or the line stays as the user left
  // it: a refused roll keeps its mode (never back to public behind the user's back) and every
  // field, and a refused line stays in the composer to be fixed. ---

  var sent = {};  // cid -> {form, text}: commands the server has not answered yet
  var sentCount = 0;

  function commandId() {
    sentCount += 1;
    return Date.now().toString(36) + "-" + sentCount.toString(36);
  }

  function answered(answer) {
    var command = sent[answer.cid];
    if (!command) { return; }
    delete sent[answer.cid];
    if (command.text !== undefined) { return lineAnswered(command, answer); }
    if (answer.error) { return; }  // the error frame says why; the form is as the user left it
    var form = command.form;
    if (form && form.isConnected && form.classList.contains("roll-form")) {
      // Rolled: its result is in the log, and the panel's one-roll mode goes back to the table's.
      if (phone.matches) { showTab("log", true); }
      applyTableMode(form);
    }
  }

  function sendFrame(frame, elt) {
    if (!socket) { return null; }
    clearErrors();
    stickToBottom = true;  // what you send, you see arrive
    frame.cid = commandId();
    socket.send(JSON.stringify(frame), elt);
    return frame.cid;
  }

  function submitComposer(form) {
    var box = form.querySelector("textarea[name='text']");
    if (!box || !window.TabletopComposer) { return; }
    var root = scene();
    var result = window.TabletopComposer.parse(box.value, {
      members: members(),
      me: parseInt((root && root.getAttribute("data-user")) || "0", 10)
    });
    if (result.error) { composerStatus("error", [result.error]); return; }
    if (result.help) { composerStatus("help", result.help); return; }
    if (!result.frame.command) {  // nothing for the server to answer (not one of its commands)
      composerStatus("error", ["That line could not be sent."]);
      return;
    }
    var waiting = Object.keys(sent).some(function (cid) { return sent[cid].text === box.value; });
    if (waiting) { return; }  // the same line is on its way: a second Enter does not send it twice
    var cid = sendFrame(result.frame, form);
    if (!cid) {
      composerStatus("error", ["Not connected yet: your message is still here, send it again in a moment."]);
      return;
    }
    sent[cid] = { form: form, text: box.value };
    form.setAttribute("data-sending", "1");
    composerStatus("", []);
  }

  // The line is cleared once the server has it (recorded or refused by the rules: the error
  // says why, and the text stays to be fixed), and only if the box still holds that line.
  function lineAnswered(command, answer) {
    var form = command.form;
    var box = form && form.querySelector("textarea[name='text']");
    if (form) { form.removeAttribute("data-sending"); }
    if (!box || answer.error) { return; }
    history.push(command.text);
    recalled = -1;
    if (box.value === command.text) {
      box.value = "";
      fitComposer(box);
    }
  }

  function fitComposer(box) {
    box.style.height = "";  // CSSOM, which the CSP allows (no style attribute in the markup)
    if (box.scrollHeight > box.clientHeight) { box.style.height = box.scrollHeight + 2 + "px"; }
  }

  document.addEventListener("submit", function (evt) {
    var form = evt.target;
    if (form && form.id === "composer") {
      evt.preventDefault();
      submitComposer(form);
    }
  });

  document.addEventListener("keydown", function (evt) {
    var box = evt.target;
    if (!box || box.id !== "composer-text") { return; }
    if (evt.key === "Enter" && !evt.shiftKey && !evt.isComposing) {
      evt.preventDefault();
      submitComposer(box.form);
    } else if (evt.key === "ArrowUp" && !box.value && history.length) {
      evt.preventDefault();
      recalled = recalled < 0 ? history.length - 1 : Math.max(0, recalled - 1);
      box.value = history[recalled];
    } else if (evt.key === "Escape") {
      composerStatus("", []);
    }
  });

  document.addEventListener("input", function (evt) {
    if (evt.target && evt.target.id === "composer-text") { fitComposer(evt.target); }
  });

  function clearErrors() {
    var errors = document.getElementById("scene-errors");
    if (errors) { errors.innerHTML = ""; }
  }

  // --- latency: each page measures its round trip over the socket every few seconds and
  // reports it with the next ping; the server passes it to the table's presence lists ---

  var PING_EVERY_MS = 5000;
  var lastRtt = null;
  var latencies = {};  // user id -> ms, kept across presence list re-renders

  function ping() {
    if (!socket || document.hidden) { return; }
    var frame = { command: "ping", t: performance.now() };
    if (lastRtt !== null) { frame.rtt = lastRtt; }
    socket.send(JSON.stringify(frame), scene());
  }

  function measured(sentAt) {
    if (typeof sentAt !== "number") { return; }
    lastRtt = Math.max(0, Math.round(performance.now() - sentAt));
    var root = scene();
    if (root) { showLatency(root.getAttribute("data-user"), lastRtt); }
  }

  function showLatency(user, ms) {
    latencies[String(user)] = ms;
    paintLatencies();
  }

  function paintLatencies() {
    document.querySelectorAll("#presence [data-rtt-for]").forEach(function (el) {
      var ms = latencies[el.getAttribute("data-rtt-for")];
      if (typeof ms !== "number") { return; }
      el.textContent = ms + " ms";
      el.setAttribute("data-speed", ms < 150 ? "good" : ms < 400 ? "fair" : "slow");
    });
  }

  // --- start-up and the socket ---

  document.addEventListener("DOMContentLoaded", function () {
    var root = scene();
    if (!root) { return; }
    lastSeq = parseInt(root.getAttribute("data-last-seq") || "0", 10);
    noteSeq(log());
    pruneControls(document);
    rememberSealed(document);
    verifyCommitments(document);
    var saved = null;
    try { saved = window.sessionStorage.getItem(tabKey()); } catch (e) { saved = null; }
    showTab(saved || "log", false);
    try {
      var mode = window.localStorage.getItem(modeKey());
      var select = document.getElementById("table-mode");
      if (mode && select && select.querySelector("option[value='" + mode + "']")) { select.value = mode; }
    } catch (e) { /* private mode */ }
    applyTableMode(document);
    scrollLog();
    showLatest();
    tickCountdowns();
    window.setInterval(tickCountdowns, 250);  // often enough for the bar to shrink smoothly
    var el = log();
    if (el) {
      el.addEventListener("scroll", function () {
        stickToBottom = atBottom(el);
        if (stickToBottom) { unread = 0; showUnread(); }
      });
    }
    phone.addEventListener("change", function () { showTab(currentTab(), false); });
  });

  var wasOpen = false;

  document.body.addEventListener("htmx:wsOpen", function (evt) {
    setStatus("live", "open");
    socket = evt.detail.socketWrapper;
    if (wasOpen) {
      replayFrom = lastSeq;
      replayUntil = Date.now() + 3000;
    }
    wasOpen = true;
    socket.send(JSON.stringify({ command: "hello", last_seq: lastSeq }), evt.detail.elt);
    ping();
  });
  window.setInterval(ping, PING_EVERY_MS);
  document.body.addEventListener("htmx:wsClose", function () {
    setStatus("reconnecting…", "closed");
    // What the closed socket had not answered may never be: the composer's line stays in the
    // box and can be sent again.
    Object.keys(sent).forEach(function (cid) {
      if (sent[cid].text !== undefined && sent[cid].form) { sent[cid].form.removeAttribute("data-sending"); }
      delete sent[cid];
    });
  });
  document.body.addEventListener("htmx:wsError", function () { setStatus("connection trouble", "error"); });

  document.body.addEventListener("htmx:wsBeforeMessage", function (evt) {
    var message = evt.detail.message;
    if (typeof message === "string" && message.charAt(0) === "{") {
      evt.preventDefault();  // a control frame, not HTML
      var control = JSON.parse(message);
      if (control.type === "done") { answered(control); }
      if (control.type === "pong") { measured(control.t); }
      if (control.type === "latency") { showLatency(control.user, control.ms); }
      if (control.type === "reload") { window.location.reload(); }
      if (control.type === "ended") { setStatus("session ended: log in again", "ended"); }
    }
  });

  var seqBefore = 0;
  document.body.addEventListener("htmx:wsBeforeMessage", function (evt) {
    seqBefore = lastSeq;
    makeRoomForCards(evt.detail.message);
  });

  // A frame may change a card in place ("morph") that this page never had: a GM's secret roll
  // revealed to players who had nothing of it, or a changed card replayed after a reconnect.
  // Such a card gets an empty place in the log in seq order first, which the morph then fills
  // (without one, htmx would drop it: htmx:oobErrorNoTarget). The server decides what a viewer
  // may see; this only decides where it goes.
  function makeRoomForCards(message) {
    var el = log();
    if (!el || typeof message !== "string" || message.indexOf('hx-swap-oob="morph"') < 0) { return; }
    var frame = document.createElement("template");
    frame.innerHTML = message;
    Array.prototype.forEach.call(frame.content.children, function (card) {
      var seq = parseInt(card.getAttribute("data-seq") || "", 10);
      if (card.getAttribute("hx-swap-oob") !== "morph" || !card.id || isNaN(seq) ||
          document.getElementById(card.id)) { return; }
      var place = document.createElement(card.tagName);
      place.id = card.id;
      place.setAttribute("data-seq", String(seq));
      var after = null;
      el.querySelectorAll(":scope > [data-seq]").forEach(function (other) {
        if (!after && parseInt(other.getAttribute("data-seq"), 10) > seq) { after = other; }
      });
      el.insertBefore(place, after);
    });
  }

  // A panel swapped in while its tab is hidden: flag the tab.
  // (An outerHTML swap's detail.target is the element it replaced, out of the page by now; the
  // event fires on what was swapped in. A morph keeps the element, detail.target.)
  document.body.addEventListener("htmx:oobAfterSwap", function (evt) {
    // Who is connected is not news worth a dot (a page's own arrival would set it).
    [evt.target, evt.detail && evt.detail.target].forEach(function (el) {
      if (el && el.isConnected && !el.closest("#scene-log, #presence")) { flagUpdated(el); }
    });
  });

  document.body.addEventListener("htmx:wsAfterMessage", function () {
    paintLatencies();  // a new presence list keeps the times already measured
    pruneControls(document);
    rememberSealed(document);
    tickCountdowns();
    noteSeq(log());
    verifyCommitments(document);
    countArrivals(seqBefore);
    markMissed();
    scrollLog();
    showLatest();
  });

  // A roll panel's odds, just fetched: their one-line summary joins the Roll button in the
  // panel's action bar, which stays in view while the full table may be scrolled away.
  document.body.addEventListener("htmx:afterSwap", function (evt) {
    var odds = evt.detail && evt.detail.target;
    if (!odds || !odds.classList || !odds.classList.contains("odds")) { return; }
    var form = odds.closest("form");
    var line = form && form.querySelector(".roll-actions .odds-line");
    if (!line) { return; }
    var note = odds.querySelector(".odds-chart .muted, .odds-error");
    var text = note ? note.textContent.replace(/\s+/g, " ").trim() : "";
    if (text.indexOf("%") < 0 && !odds.querySelector(".odds-error")) {
      // No summary with a chance in it: each outcome's chance, in a line.
      text = Array.prototype.map.call(odds.querySelectorAll(".odds-chart tr"), function (row) {
        var th = row.querySelector("th");
        var cells = row.querySelectorAll("td");
        return th && cells.length ? th.textContent.trim() + " " + cells[cells.length - 1].textContent.trim() : "";
      }).filter(Boolean).join(" · ");
    }
    line.textContent = text;
    line.classList.toggle("odds-error", !!odds.querySelector(".odds-error"));
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

  // A form sent over the socket (a roll panel, a procedure's form): it gets an id, and stays as
  // the user left it until the server is done with it (``answered``: then a roll's result is in
  // the log, so a phone shows the log, and the panel's mode goes back to the table's).
  document.body.addEventListener("htmx:wsConfigSend", function (evt) {
    clearErrors();
    stickToBottom = true;
    var form = evt.detail && evt.detail.elt;
    if (!form || !evt.detail.parameters) { return; }
    var cid = commandId();
    evt.detail.parameters.cid = cid;
    sent[cid] = { form: form };
  });
})();
