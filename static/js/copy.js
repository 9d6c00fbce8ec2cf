// Copy buttons: <button data-copy-from="field-id" data-copy-status="status-id"> copies the field's
// text to the clipboard and says so in the status element (an aria-live region). Where the
// clipboard API is missing (plain HTTP, older browsers) or refused, the text is selected instead
// so the user can copy it by hand. Listeners live here, not inline (CSP); one delegated listener
// keeps working after htmx swaps the invites section.
(function () {
  "use strict";

  var timers = {};

  function say(status, text, state) {
    if (!status) { return; }
    status.textContent = text;
    status.setAttribute("data-state", state);
    window.clearTimeout(timers[status.id]);
    timers[status.id] = window.setTimeout(function () {
      status.textContent = "";
      status.removeAttribute("data-state");
    }, 6000);
  }

  function selectText(field) {
    field.focus();
    if (typeof field.select === "function") { field.select(); }
    if (typeof field.setSelectionRange === "function") { field.setSelectionRange(0, field.value.length); }
  }

  // The old way, for insecure contexts: copy the selection. Returns whether it worked.
  function copySelection(field) {
    selectText(field);
    try {
      return document.execCommand("copy");
    } catch (err) {
      return false;
    }
  }

  function fallback(field, status) {
    if (copySelection(field)) {
      say(status, "Copied to the clipboard.", "copied");
    } else {
      say(status, "Link selected: copy it with Ctrl+C, ⌘C or your device's Copy menu.", "selected");
    }
  }

  document.addEventListener("click", function (evt) {
    var button = evt.target instanceof Element ? evt.target.closest("button[data-copy-from]") : null;
    if (!button) { return; }
    var field = document.getElementById(button.getAttribute("data-copy-from"));
    var status = document.getElementById(button.getAttribute("data-copy-status"));
    if (!field) { return; }
    var text = "value" in field ? field.value : field.textContent;
    if (navigator.clipboard && typeof navigator.clipboard.writeText === "function" && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () {
        say(status, "Copied to the clipboard.", "copied");
      }, function () {
        fallback(field, status);
      });
    } else {
      fallback(field, status);
    }
  });
})();
