// A form that asks first: a ws-send form with data-confirm (its words rendered by the server,
// as "Brannoc has not acted yet. End Heroes' turn anyway?") is sent only once the user says
// yes. The question is asked as the ws extension is about to send (htmx:wsConfigSend), in the
// capture phase, before commands.js makes a command of it: a "no" sends nothing and changes
// nothing. htmx's own hx-confirm is asked for its requests only, never for ws-send.

// Whether a form's command may go: no question, or the user said yes to it.
export function confirmed(form, ask) {
  const question = form && form.getAttribute ? form.getAttribute("data-confirm") : null;
  return !question || Boolean(ask(question));
}

export function listen() {
  document.addEventListener("htmx:wsConfigSend", function (evt) {
    const form = evt.detail && evt.detail.elt;
    if (confirmed(form, function (question) { return window.confirm(question); })) { return; }
    evt.preventDefault();  // the extension sends nothing
    evt.stopPropagation();  // and no command is made of it
  }, true);
}
