// No unit test: DOM wiring only, with no decision of its own to test without a page.
// Tools and procedure views pushed live (party, dashboard, procedures) are morphed into place,
// not replaced, so one re-rendered under a player's fingers keeps the focus, the open <details> and what is
// being typed, and does not eat the click. Only the "morph" style is ours: htmx-ext's own
// morph extension also claims "beforeend", which would nest the log in itself.
// Defined before htmx processes the page (scene.js says why that holds for a module).

export function defineTableMorph() {
  if (!window.htmx || !window.Idiomorph) { return; }
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
