// Roll forms (the Roll tool's, one per roll kind): every one starts from the table-wide roll mode
// (#table-mode, remembered per scene in this browser) and may differ for one roll; an option
// may fill in another field of its form (a foe sets the difficulty); a roll form's fields are
// set as a rollable of the Sheet tool names them; a roll form that rolled goes back to the table's
// mode.

import { recall, remember, sceneKey } from "./page.js";
import { onPhone, showTab } from "./tabs.js";

// --- the table-wide roll mode: every roll form starts from it, one may differ once ---

function modeKey() { return sceneKey("roll-mode"); }

function tableMode() {
  const select = document.getElementById("table-mode");
  return select ? select.value : "public";
}

export function applyTableMode(root) {
  const mode = tableMode();
  (root || document).querySelectorAll("select[data-roll-mode]").forEach(function (select) {
    if (select.querySelector("option[value='" + mode + "']")) { select.value = mode; }
  });
}

// The mode this browser chose for the scene, back in the table-wide select.
export function restoreTableMode() {
  const mode = recall("localStorage", modeKey());
  const select = document.getElementById("table-mode");
  try {
    if (mode && select && select.querySelector("option[value='" + mode + "']")) { select.value = mode; }
  } catch (e) { /* a stored mode that is no selector */ }
}

// Rolled (its command answered without an error): its result is in the log, and the roll form's
// one-roll mode goes back to the table's.
export function rolled(form) {
  if (!form || !form.isConnected || !form.classList.contains("roll-form")) { return; }
  if (onPhone()) { showTab("log", true); }
  applyTableMode(form);
}

// An option's data-sets read: [the field's name, its value], the name up to the first ":".
export function setsField(spec) {
  const at = spec.indexOf(":");
  return [spec.slice(0, at), spec.slice(at + 1)];
}

// An option may fill in another field of its form: data-sets="difficulty:7" (a foe picked on
// a roll form sets the difficulty the roll is made against, and the field shows it). An
// option without it gives the field back to the player.
function applyPickedValues(select) {
  const form = select.form;
  if (!form) { return; }
  const option = select.options[select.selectedIndex];
  const spec = option ? option.getAttribute("data-sets") : null;
  form.querySelectorAll("[data-set-by='" + select.name + "']").forEach(function (field) {
    field.readOnly = false;
    field.removeAttribute("data-set-by");
  });
  if (!spec) { return; }
  const sets = setsField(spec);
  const field = form.elements.namedItem(sets[0]);
  if (!field || !("value" in field)) { return; }
  field.value = sets[1];
  field.readOnly = true;
  field.setAttribute("data-set-by", select.name);
  field.dispatchEvent(new Event("input", { bubbles: true }));
}

// One field of a roll form, set as a rollable names it: a select only to an option it has
// (else it stays as it was and the odds say what is wrong), a radio group to the radio of that
// value, a checkbox ticked, a text or number field to the value.
export function setField(form, name, value) {
  const field = form.elements.namedItem(name);
  if (!field) { return; }
  const items = field.tagName ? [field] : Array.prototype.slice.call(field);
  const first = items[0];
  if (!first) { return; }
  if (first.tagName === "SELECT") {
    const has = Array.prototype.some.call(first.options, function (o) { return o.value === value; });
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

// The dice box's examples (its form's "Examples", from the dice reference): a click puts the
// example in the expression field, and the odds are asked for it.
function fillExample(button) {
  const form = button.closest("form");
  const field = form ? form.querySelector("input[name='expression']") : null;
  if (!field) { return; }
  field.value = button.getAttribute("data-dice-example");
  field.dispatchEvent(new Event("input", { bubbles: true }));
  field.focus({ preventScroll: true });
}

export function listen() {
  document.addEventListener("click", function (evt) {
    const button = evt.target.closest ? evt.target.closest("button[data-dice-example]") : null;
    if (button) { fillExample(button); }
  });

  document.addEventListener("change", function (evt) {
    const target = evt.target;
    if (target && target.tagName === "SELECT" && target.querySelector("option[data-sets]")) {
      applyPickedValues(target);
    }
  });

  document.addEventListener("change", function (evt) {
    if (evt.target && evt.target.id === "table-mode") {
      remember("localStorage", modeKey(), evt.target.value);
      applyTableMode(document);
    }
  });
}
