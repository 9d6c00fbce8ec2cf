// The live scene page: keeps the seq cursor, says hello on (re)connect so the server replays what
// was missed (and marks what was), handles JSON control frames, verifies revealed commitments,
// keeps the log anchored with a "N new" pill, switches the tool tabs, sends the composer's line
// (parsed by composer.js), keeps every roll panel on the table-wide roll mode and fills one from
// a rollable number of the Sheet tool. Every command it sends is kept until the server answers
// it, sent again after a reconnect, never twice.
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

  // Reconnects: the first retry within half a second, then never more than 4 s apart while the
  // server is away, so a page is live within 5 s of its return (htmx-ext-ws's own delay grows to
  // 64 s: a table back up stayed dead for half a minute), each wait jittered so a restarted
  // server is not met by every page at once.
  var RECONNECT_FIRST_MS = 500;
  var RECONNECT_CAP_MS = 4000;
  var htmxApi = null;  // htmx's internal API, handed to extensions: it holds the socket's wrapper
  if (window.htmx) {
    window.htmx.config.wsReconnectDelay = function (retryCount) {
      var ceiling = Math.min(RECONNECT_CAP_MS, RECONNECT_FIRST_MS * Math.pow(2, retryCount));
      return ceiling / 2 + Math.random() * (ceiling / 2);
    };
    window.htmx.defineExtension("table-socket", { init: function (api) { htmxApi = api; } });
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

  // The connection's word in the header; "Retry now" beside it while the socket is down.
  function setStatus(text, state) {
    var el = document.getElementById("connection");
    if (el) { el.textContent = text; el.setAttribute("data-state", state); }
    var now = document.getElementById("reconnect-now");
    if (now) { now.hidden = state !== "closed" && state !== "error"; }
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

  // --- the Sheet tool: a character's sheet at the table (templates/scenes/_sheet_tool.html).
  // Each rollable number is a button that fills its roll panel (the character, what is rolled,
  // the table-wide mode), opens it in the Roll tool and asks for its odds: one more click rolls.
  // The sheet's currencies mirror the party panel's and the GM table's cells (data-mirrors
  // names the cell), which the server's frames keep live: the sheet has no frames of its own.
  // The GM (or a player with several characters) picks whose sheet shows; the page remembers. ---

  function sheetKey() { return "tabletop:scene-sheet:" + ((scene() && scene().getAttribute("data-scene")) || ""); }

  function showSheet(pk, remember) {
    var cards = Array.prototype.slice.call(document.querySelectorAll("#tab-sheet [data-sheet]"));
    if (!cards.some(function (card) { return card.getAttribute("data-sheet") === pk; })) { return; }
    cards.forEach(function (card) { card.hidden = card.getAttribute("data-sheet") !== pk; });
    var pick = document.getElementById("sheet-pick");
    if (pick && pick.value !== pk) { pick.value = pk; }
    if (remember) {
      try { window.sessionStorage.setItem(sheetKey(), pk); } catch (e) { /* private mode */ }
    }
  }

  function mirrorSheet() {
    document.querySelectorAll("#tab-sheet [data-mirrors]").forEach(function (el) {
      var cell = document.getElementById(el.getAttribute("data-mirrors"));
      var text = cell ? cell.textContent.trim() : null;
      if (text !== null && el.textContent !== text) { el.textContent = text; }
    });
  }

  // One field of a roll panel, set as a rollable names it: a select only to an option it has
  // (else it stays as it was and the odds say what is wrong), a radio group to the radio of that
  // value, a checkbox ticked, a text or number field to the value.
  function setField(form, name, value) {
    var field = form.elements.namedItem(name);
    if (!field) { return; }
    var items = field.tagName ? [field] : Array.prototype.slice.call(field);
    var first = items[0];
    if (!first) { return; }
    if (first.tagName === "SELECT") {
      var has = Array.prototype.some.call(first.options, function (o) { return o.value === value; });
      if (!has) { return; }
      first.value = value;
      if (first.querySelector("option[data-sets]")) { applyPickedValues(first); }
    } else if (first.type === "checkbox") {
      items.forEach(function (box) { box.checked = true; });
    } else if (first.type === "radio") {
      items.forEach(function (radio) { radio.checked = radio.value === value; });
    } else {
      first.value = value;
    }
  }

  function askOdds(el) {
    if (!el || !window.htmx) { return; }
    if (offline) {  // asked again once the table is back (refreshOdds)
      if (staleOdds.indexOf(el) < 0) { staleOdds.push(el); }
      return;
    }
    var asked = window.htmx.ajax("GET", el.getAttribute("hx-get"), { source: el, target: el, swap: "innerHTML" });
    if (asked && asked.catch) { asked.catch(function () { /* the next change asks again */ }); }
  }

  function fillRollPanel(button) {
    var kind = button.getAttribute("data-roll-kind");
    var form = document.querySelector("#tab-roll form.roll-form[data-roll-kind='" + kind + "']");
    if (!form) { return; }
    var fields = {};
    try { fields = JSON.parse(button.getAttribute("data-fields") || "{}"); } catch (e) { fields = {}; }
    // Exactly the boxes the rollable names are ticked: a speciality left ticked from an earlier
    // roll of another attribute would be refused.
    form.querySelectorAll("input[type='checkbox']").forEach(function (box) { box.checked = false; });
    setField(form, "character", button.getAttribute("data-character"));
    Object.keys(fields).forEach(function (name) { setField(form, name, String(fields[name])); });
    applyTableMode(form);
    var panel = form.closest("details");
    document.querySelectorAll("#tab-roll details[open]").forEach(function (other) {
      if (other !== panel) { other.open = false; }
    });
    if (panel) { panel.open = true; }
    showTab("roll", true);
    askOdds(form.querySelector(".odds"));
    if (panel) { panel.scrollIntoView({ block: "start" }); }
    var roll = form.querySelector("button[type='submit']");
    if (roll) { roll.focus({ preventScroll: true }); }
  }

  document.addEventListener("click", function (evt) {
    var button = evt.target.closest ? evt.target.closest("#tab-sheet [data-rollable]") : null;
    if (button) { fillRollPanel(button); }
  });

  document.addEventListener("change", function (evt) {
    if (evt.target && evt.target.id === "sheet-pick") { showSheet(evt.target.value, true); }
  });

  document.body.addEventListener("htmx:wsAfterMessage", mirrorSheet);

  document.addEventListener("DOMContentLoaded", function () {
    var saved = null;
    try { saved = window.sessionStorage.getItem(sheetKey()); } catch (e) { saved = null; }
    if (saved) { showSheet(saved, false); }
    mirrorSheet();
  });

  // --- the composer ---

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
    composerStatus("", []);
    // The same line on its way is not sent twice: a second Enter only retries it when it is
    // stuck (the table away, or shown "not sent").
    var waiting = commands.filter(function (c) { return c.text === box.value; })[0];
    if (waiting) {
      if (offline || waiting.state === "unsent") { retry(waiting); }
      return;
    }
    make(result.frame, form, box.value);
  }

  // The line is cleared once the server has it (recorded or refused by the rules: the error
  // says why, and the text stays to be fixed), and only if the box still holds that line.
  function lineAnswered(command, answer) {
    var box = command.form && command.form.querySelector("textarea[name='text']");
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

  // --- the socket: htmx-ext-ws's, reconnected fast, or at once on "Retry now" ---

  var offline = false;  // the socket closed and has not opened since (not: connecting at load)
  var guarded = null;  // the extension's socket wrapper, once its retry timer is guarded
  var connectNow = null;  // that wrapper's own connect

  // The extension keeps its socket in a wrapper among htmx's data on #scene, and after a close
  // retries on a timer nothing can cancel. "Retry now" connects at once, so that timer must then
  // do nothing: it would close the new socket, or open a second one (every frame twice).
  function connection() {
    var root = scene();
    var wrapper = htmxApi && root ? htmxApi.getInternalData(root).webSocket : null;
    if (wrapper && wrapper !== guarded) {
      guarded = wrapper;
      connectNow = wrapper.init;
      wrapper.init = function () {
        var state = this.socket ? this.socket.readyState : WebSocket.CLOSED;
        if (state !== WebSocket.CONNECTING && state !== WebSocket.OPEN) { connectNow.call(this); }
      };
    }
    return wrapper || null;
  }

  function isOpen() {
    var wrapper = connection();
    return !!(wrapper && wrapper.socket && wrapper.socket.readyState === WebSocket.OPEN);
  }

  // Frames go out on an open socket only: the extension would queue one sent while closed and
  // send it on the next open, beside the page's own resend of unanswered commands.
  function transmit(text, elt) {
    if (!isOpen()) { return false; }
    connection().send(text, elt || scene());
    return true;
  }

  function reconnectNow() {
    var wrapper = connection();
    var state = wrapper && wrapper.socket ? wrapper.socket.readyState : WebSocket.OPEN;
    if (state === WebSocket.CLOSING || state === WebSocket.CLOSED) { connectNow.call(wrapper); }
  }

  // --- commands, each made once: every command the page sends (a form over the socket, the
  // composer's line) carries an id, "cid", and is kept until the server answers it: done (also
  // "repeat": that cid was recorded already), refused (the error says why; the form or the line
  // stays as the user left it), or "retry" (the server could not answer in time). Unanswered, it
  // shows "sending…", and past ANSWER_WITHIN_MS "not sent" with Retry and Cancel. A closed
  // socket forgets none: after the next hello each goes again, in order, with its cid (the
  // server records a cid once per scene and sender) and "again" (so a repeat is found before
  // its own first run could refuse it: a benny already spent). ---

  var ANSWER_WITHIN_MS = 8000;
  var QUIET_MS = 500;  // an answer within this needs no "sending…"
  var commands = [];  // unanswered, in the order they were made
  var madeCount = 0;

  // The server records an id once per scene and sender, and answers a second command with
  // the same id as a repeat: so ids must not collide between a player's tabs (two tabs
  // opened in the same millisecond count from 1 alike). A random part makes them unique.
  var pageId = (function () {
    var bytes = new Uint8Array(6);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
  })();

  function commandId() {
    madeCount += 1;
    return pageId + "-" + madeCount.toString(36);
  }

  function find(cid) { return commands.filter(function (c) { return c.cid === cid; })[0] || null; }

  function make(frame, form, text) {
    clearErrors();
    stickToBottom = true;  // what you send, you see arrive
    var command = { key: JSON.stringify(frame), form: form, text: text, label: labelOf(form, text), tries: 0 };
    frame.cid = command.cid = commandId();
    command.frame = frame;
    commands.push(command);
    send(command);
  }

  function send(command) {
    var frame = command.tries ? Object.assign({}, command.frame, { again: true }) : command.frame;
    if (transmit(JSON.stringify(frame), command.form)) { command.tries += 1; }
    command.state = "sending";
    command.since = Date.now();
    command.shown = offline;  // at once while the table is away; otherwise only if slow
    showCommand(command);
  }

  // Retry: the same command (its cid) again, and the connection at once if it is down.
  function retry(command) {
    send(command);
    if (!isOpen()) { reconnectNow(); }
  }

  function answered(answer) {
    var command = find(answer.cid);
    if (!command) { return; }  // cancelled by the user
    if (answer.retry) { return notSent(command, answer.error); }
    forget(command);
    if (command.text !== undefined) { return lineAnswered(command, answer); }
    if (answer.error) { return; }  // the error frame says why; the form is as the user left it
    var form = command.form;
    if (form && form.isConnected && form.classList.contains("roll-form")) {
      // Rolled: its result is in the log, and the panel's one-roll mode goes back to the table's.
      if (phone.matches) { showTab("log", true); }
      applyTableMode(form);
    }
  }

  function notSent(command, why) {
    command.state = "unsent";
    command.why = why || (offline ? "the table is reconnecting; it goes once it is back."
      : "no answer from the table's server yet.");
    showCommand(command);
  }

  function forget(command) {
    commands.splice(commands.indexOf(command), 1);
    if (command.line) { command.line.remove(); }
  }

  window.setInterval(function () {
    var now = Date.now();
    commands.forEach(function (command) {
      if (command.state !== "sending") { return; }
      if (now - command.since >= ANSWER_WITHIN_MS) {
        notSent(command, null);
      } else if (!command.shown && now - command.since >= QUIET_MS) {
        command.shown = true;
        showCommand(command);
      }
    });
  }, 250);

  // A command's state shows where it was made: under the composer for a line, in a roll
  // panel's action bar for its roll, else under the scene's header (a card's or a panel's button).
  function boxFor(command) {
    var form = command.form;
    if (form && form.id === "composer") { return document.getElementById("composer-pending"); }
    var bar = form && form.isConnected ? form.querySelector(".roll-actions .command-state") : null;
    return bar || document.getElementById("pending-commands");
  }

  function labelOf(form, text) {
    if (text !== undefined) {
      var line = text.replace(/\s+/g, " ").trim();
      return "“" + (line.length > 40 ? line.slice(0, 39) + "…" : line) + "”";
    }
    if (form && form.classList.contains("roll-form")) { return "Roll"; }
    var button = form && form.querySelector("button");
    var name = button ? button.getAttribute("aria-label") || button.textContent : "";
    return name.replace(/\s+/g, " ").trim() || "Your action";
  }

  function showCommand(command) {
    var line = command.line || (command.line = document.createElement("p"));
    var box = boxFor(command);
    if (box && line.parentNode !== box) { box.appendChild(line); }
    var hadFocus = line.contains(document.activeElement);
    var unsent = command.state === "unsent";
    line.className = "command-line";
    line.setAttribute("data-state", unsent ? "unsent" : "sending");
    line.hidden = !unsent && !command.shown;
    line.textContent = "";
    var what = document.createElement("strong");
    what.textContent = command.label;
    line.append(what, unsent ? " not sent: " + command.why + " " : " sending…");
    if (unsent) {
      line.append(commandButton("Retry", command, "retry"), " ", commandButton("Cancel", command, "cancel"));
    }
    if (hadFocus) { focusOrigin(command); }
  }

  function commandButton(text, command, action) {
    var button = document.createElement("button");
    button.type = "button";
    button.className = action === "retry" ? "small" : "small secondary outline";
    button.textContent = text;
    button.setAttribute("aria-label", text + " " + command.label);
    button.setAttribute("data-command-" + action, command.cid);
    return button;
  }

  // Retry or Cancel takes its button away: the focus goes back to where the command was made.
  function focusOrigin(command) {
    var form = command.form;
    if (!form || !form.isConnected) { return; }
    var target = form.querySelector(form.id === "composer" ? "textarea" : "button[type='submit'], button");
    if (target) { target.focus(); }
  }

  document.addEventListener("click", function (evt) {
    var el = evt.target.closest ? evt.target.closest("[data-command-retry], [data-command-cancel], #reconnect-now") : null;
    if (!el) { return; }
    if (el.id === "reconnect-now") { reconnectNow(); return; }
    var command = find(el.getAttribute("data-command-retry") || el.getAttribute("data-command-cancel"));
    if (!command) { return; }
    if (el.hasAttribute("data-command-retry")) { retry(command); return; }
    forget(command);  // the line and the form stay as the user left them
    focusOrigin(command);
  });

  // A form sent over the socket (a roll panel, a procedure's form, a card's button) is made a
  // command here and sent by the page, not by the extension (whose queue would send it again).
  document.body.addEventListener("htmx:wsConfigSend", function (evt) {
    var form = evt.detail && evt.detail.elt;
    if (!form || !evt.detail.parameters || (evt.detail.errors && evt.detail.errors.length)) { return; }
    evt.preventDefault();
    var frame = Object.assign({}, evt.detail.parameters);
    // Pressed again while stuck (the table away, or "not sent"): the same command, not a second.
    var key = JSON.stringify(frame);
    var same = commands.filter(function (c) { return c.form === form && c.key === key; })[0];
    if (same && (offline || same.state === "unsent")) { retry(same); return; }
    make(frame, form);
  });

  // --- latency: each page measures its own round trip over the socket every few seconds and
  // reports it with the next ping; the presence list the server sends carries every member's
  // (the page paints its own, fresher, after each pong) ---

  var PING_EVERY_MS = 5000;
  var lastRtt = null;

  function ping() {
    if (document.hidden) { return; }
    var frame = { command: "ping", t: performance.now() };
    if (lastRtt !== null) { frame.rtt = lastRtt; }
    transmit(JSON.stringify(frame));
  }

  function measured(sentAt) {
    if (typeof sentAt !== "number") { return; }
    lastRtt = Math.max(0, Math.round(performance.now() - sentAt));
    paintOwnRtt();
  }

  function paintOwnRtt() {
    var root = scene();
    if (lastRtt === null || !root) { return; }
    var el = document.querySelector("#presence [data-rtt-for='" + root.getAttribute("data-user") + "']");
    if (!el) { return; }
    el.textContent = lastRtt + " ms";
    el.setAttribute("data-rtt-ms", String(lastRtt));
    el.setAttribute("data-speed", lastRtt < 150 ? "good" : lastRtt < 400 ? "fair" : "slow");
  }

  // --- a roll panel's odds: not asked for while the table is away (the request could only
  // fail); those skipped, or failed as it went, are asked for again once it is back ---

  var staleOdds = [];

  function isOdds(el) { return !!(el && el.classList && el.classList.contains("odds")); }

  document.body.addEventListener("htmx:beforeRequest", function (evt) {
    var el = evt.detail && evt.detail.elt;
    if (!offline || !isOdds(el)) { return; }
    evt.preventDefault();
    if (staleOdds.indexOf(el) < 0) { staleOdds.push(el); }
  });

  document.body.addEventListener("htmx:sendError", function (evt) {
    var el = evt.detail && evt.detail.elt;
    if (isOdds(el) && staleOdds.indexOf(el) < 0) { staleOdds.push(el); }
  });

  function refreshOdds() {
    var due = staleOdds;
    staleOdds = [];
    due.forEach(function (el) {
      if (!el.isConnected) { return; }
      var asked = window.htmx.ajax("GET", el.getAttribute("hx-get"), { source: el, target: el, swap: "innerHTML" });
      if (asked && asked.catch) { asked.catch(function () { /* the next change asks again */ }); }
    });
  }

  // --- start-up and the socket's events ---

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
  // Close codes the extension reconnects after (abnormal, server error, restart, try later).
  var RECONNECTS_AFTER = [1006, 1011, 1012, 1013];

  document.body.addEventListener("htmx:wsOpen", function (evt) {
    offline = false;
    setStatus("live", "open");
    if (wasOpen) {
      replayFrom = lastSeq;
      replayUntil = Date.now() + 3000;
    }
    wasOpen = true;
    transmit(JSON.stringify({ command: "hello", last_seq: lastSeq }), evt.detail.elt);
    commands.forEach(send);  // every unanswered command again, in order, with its cid
    refreshOdds();
    ping();
  });
  window.setInterval(ping, PING_EVERY_MS);

  document.body.addEventListener("htmx:wsClose", function (evt) {
    offline = true;
    var status = document.getElementById("connection");
    if (status && status.getAttribute("data-state") !== "ended") {
      var code = evt.detail && evt.detail.event ? evt.detail.event.code : 1006;
      setStatus(RECONNECTS_AFTER.indexOf(code) >= 0 ? "reconnecting…" : "disconnected", "closed");
    }
    // Nothing unanswered is forgotten: each shows it is waiting for the table.
    commands.forEach(function (command) {
      if (!command.shown) { command.shown = true; showCommand(command); }
    });
  });
  document.body.addEventListener("htmx:wsError", function () {
    if (!isOpen()) { setStatus("connection trouble", "error"); }
  });

  document.body.addEventListener("htmx:wsBeforeMessage", function (evt) {
    var message = evt.detail.message;
    if (typeof message === "string" && message.charAt(0) === "{") {
      evt.preventDefault();  // a control frame, not HTML
      var control = JSON.parse(message);
      if (control.type === "done") { answered(control); }
      if (control.type === "pong") { measured(control.t); }
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
    paintOwnRtt();  // a new presence list: this page's own time is the freshest
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
})();
