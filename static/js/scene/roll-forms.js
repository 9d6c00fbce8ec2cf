// Roll forms (the Roll tool's, one per roll kind): every one starts from the table-wide roll mode
// (#table-mode, remembered per scene in this browser) and may differ for one roll; an option
// may fill in another field of its form (a foe sets the difficulty); a roll form's fields are
// set as a rollable of the Sheet tool names them; a roll form that rolled goes back to the table's
// mode; a form offers only the picked character's skills.

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
    const same = Array.prototype.filter.call(first.options, function (o) { return o.value === value; });
    if (!same.length) { return; }
    // The option still offered (two characters' "Strength" share a value; one is hidden).
    (same.filter(usable)[0] || same[0]).selected = true;
    first.removeAttribute("data-picked-for");  // the rollable's choice, as the user's own
    if (first.querySelector("option[data-sets]")) { applyPickedValues(first); }
    if (name === "character") { followCharacter(form); }
  } else if (first.type === "checkbox") {
    items.forEach(function (box) { box.checked = true; });
  } else if (first.type === "radio") {
    items.forEach(function (radio) { radio.checked = radio.value === value; });
  } else {
    first.value = value;
  }
}

// --- a form follows the character picked ---
// A GM's form lists every character's skills (a player's, each of their characters'): an
// option group, an option or a tick box's label marked data-character="<pk>" is offered only
// while that character is picked (Kestrel picked, only Kestrel's skills), so a skill of
// another character is never sent for her. A choice that goes away gives way to the first one
// still offered.

// Whether what data-character marks (owner: its character's pk, or none) is offered.
export function offered(owner, picked) { return !owner || owner === picked; }

function usable(option) {
  const group = option.parentNode;
  return !option.disabled && !(group && group.tagName === "OPTGROUP" && group.disabled);
}

export function followCharacter(form) {
  const select = form.elements.namedItem("character");
  if (!select || select.tagName !== "SELECT") { return; }
  const picked = select.value;
  form.querySelectorAll("[data-character]").forEach(function (el) {
    const on = offered(el.getAttribute("data-character"), picked);
    el.hidden = !on;
    if (el.tagName === "OPTION" || el.tagName === "OPTGROUP") { el.disabled = !on; }
    el.querySelectorAll("input").forEach(function (box) {
      box.disabled = !on;
      if (!on) { box.checked = false; }
    });
  });
  form.querySelectorAll("select").forEach(function (field) {
    if (!field.querySelector("[data-character]")) { return; }
    const chosen = field.options[field.selectedIndex];
    // Kept: a choice still offered, the user's own or made here for this same character. Else
    // the first offered, as the form would start for this character alone.
    const madeFor = field.getAttribute("data-picked-for");
    if (chosen && usable(chosen) && (madeFor === null || madeFor === picked)) { return; }
    const first = Array.prototype.filter.call(field.options, usable)[0];
    if (!first) { return; }
    field.setAttribute("data-picked-for", picked);
    if (first === chosen) { return; }
    first.selected = true;  // not by value: another character's hidden option may share it
    field.dispatchEvent(new Event("input", { bubbles: true }));  // the odds follow
  });
}

// Every form with a character select on the page (or under root), as its character stands.
export function followCharacters(root) {
  (root || document).querySelectorAll("form").forEach(function (form) {
    if (form.querySelector("[data-character]")) { followCharacter(form); }
  });
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
    const target = evt.target;
    if (!target || target.tagName !== "SELECT" || !target.form) { return; }
    if (target.name === "character") {
      followCharacter(target.form);
    } else {
      target.removeAttribute("data-picked-for");  // the user's own choice from now on
    }
  });
  // A procedure's form re-rendered live (a new character, a skill changed) follows again.
  document.body.addEventListener("htmx:wsAfterMessage", function () { followCharacters(document); });

  document.addEventListener("change", function (evt) {
    if (evt.target && evt.target.id === "table-mode") {
      remember("localStorage", modeKey(), evt.target.value);
      applyTableMode(document);
    }
  });
}
