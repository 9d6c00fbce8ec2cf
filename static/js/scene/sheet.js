// The Sheet tool: a character's sheet at the table (templates/scenes/_sheet_tool.html).
// Each rollable number is a button that fills its roll form (the character, what is rolled,
// the table-wide mode), opens it in the Roll tool and asks for its odds: one more click rolls.
// The sheet's currencies mirror the Party tool's and the GM table's cells (data-mirrors
// names the cell), which the server's frames keep live: the sheet has no frames of its own.
// The GM (or a player with several characters) picks whose sheet shows; the page remembers.

import { recall, remember, sceneKey } from "./page.js";
import { showTab } from "./tabs.js";
import { applyTableMode, setField } from "./roll-forms.js";
import { askOdds } from "./odds.js";

function sheetKey() { return sceneKey("scene-sheet"); }

// A rollable's fields (its data-fields, JSON) as [name, value] pairs, each value a text as a
// form's fields hold it (7 is "7"); none when there are none or they cannot be read.
export function rollableFields(json) {
  let fields = {};
  try { fields = JSON.parse(json || "{}"); } catch (e) { fields = {}; }
  return Object.keys(fields).map(function (name) { return [name, String(fields[name])]; });
}

function showSheet(pk, keep) {
  const cards = Array.prototype.slice.call(document.querySelectorAll("#tab-sheet [data-sheet]"));
  if (!cards.some(function (card) { return card.getAttribute("data-sheet") === pk; })) { return; }
  cards.forEach(function (card) { card.hidden = card.getAttribute("data-sheet") !== pk; });
  const pick = document.getElementById("sheet-pick");
  if (pick && pick.value !== pk) { pick.value = pk; }
  if (keep) { remember("sessionStorage", sheetKey(), pk); }
}

export function mirrorSheet() {
  document.querySelectorAll("#tab-sheet [data-mirrors]").forEach(function (el) {
    const cell = document.getElementById(el.getAttribute("data-mirrors"));
    const text = cell ? cell.textContent.trim() : null;
    if (text !== null && el.textContent !== text) { el.textContent = text; }
  });
}

function fillRollForm(button) {
  const kind = button.getAttribute("data-roll-kind");
  const form = document.querySelector("#tab-roll form.roll-form[data-roll-kind='" + kind + "']");
  if (!form) { return; }
  // Exactly the boxes the rollable names are ticked: a speciality left ticked from an earlier
  // roll of another attribute would be refused.
  form.querySelectorAll("input[type='checkbox']").forEach(function (box) { box.checked = false; });
  setField(form, "character", button.getAttribute("data-character"));
  rollableFields(button.getAttribute("data-fields")).forEach(function (field) {
    setField(form, field[0], field[1]);
  });
  applyTableMode(form);
  const rollForm = form.closest("details");
  document.querySelectorAll("#tab-roll details[open]").forEach(function (other) {
    if (other !== rollForm) { other.open = false; }
  });
  if (rollForm) { rollForm.open = true; }
  showTab("roll", true);
  askOdds(form.querySelector(".odds"));
  if (rollForm) { rollForm.scrollIntoView({ block: "start" }); }
  const roll = form.querySelector("button[type='submit']");
  if (roll) { roll.focus({ preventScroll: true }); }
}

// The sheet this tab showed last, and the currencies as the page has them.
export function startSheet() {
  const saved = recall("sessionStorage", sheetKey());
  if (saved) { showSheet(saved, false); }
  mirrorSheet();
}

export function listen() {
  document.addEventListener("click", function (evt) {
    const button = evt.target.closest ? evt.target.closest("#tab-sheet [data-rollable]") : null;
    if (button) { fillRollForm(button); }
  });

  document.addEventListener("change", function (evt) {
    if (evt.target && evt.target.id === "sheet-pick") { showSheet(evt.target.value, true); }
  });

  document.body.addEventListener("htmx:wsAfterMessage", mirrorSheet);
}
