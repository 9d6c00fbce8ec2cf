// Speaking as (the picker beside the message box, #speaking-as): the member themself, one of
// their characters, or for the GM one of theirs or any NPC's name typed (#speaking-as-name).
// The composer's lines and rolls and the roll forms' rolls go as it ({as: name} in their
// frames); /as, /emas, /ooc and /desc say for themselves. Kept per scene and member in this tab
// (sessionStorage), so a reload, or the composer morphed in again when the scene opens, keeps
// it. The server decides who may speak as whom (tabletop/scenes/speakers.py).

import { me, recall, remember, sceneKey } from "./page.js";

// --- the decisions, on plain values ---

// What a frame carries for the picked speaker: {as: name}, or nothing for the member themself.
export function speakerFields(picked) {
  const name = picked && typeof picked.name === "string" ? picked.name.trim() : "";
  return name ? { as: name } : {};
}

// A frame going out as the picked speaker: a line or a roll (only those speak) that names no
// speaker or voice of its own (/as, /ooc, /desc did), with the picked one added.
export function withSpeaker(frame, picked) {
  if (!frame || (frame.command !== "chat" && frame.command !== "roll")) { return frame; }
  if (Object.prototype.hasOwnProperty.call(frame, "as") || frame.voice) { return frame; }
  return Object.assign(frame, speakerFields(picked));
}

// What was kept ({name, other}) read back from storage; null when nothing (or nonsense) was.
export function readKept(text) {
  try {
    const kept = JSON.parse(text);
    if (kept && typeof kept.name === "string") { return { name: kept.name, other: kept.other === true }; }
  } catch (e) { /* nothing kept */ }
  return null;
}

// --- the page ---

function key() { return sceneKey("speaking-as") + ":" + me(); }

function parts() {
  return {
    select: document.getElementById("speaking-as"),
    other: document.getElementById("speaking-as-other"),
    name: document.getElementById("speaking-as-name")
  };
}

function otherPicked(select) {
  const option = select && select.options[select.selectedIndex];
  return Boolean(option && option.hasAttribute("data-speaking-other"));
}

// Who the picker says now: {name, other} (name "" for the member themself).
export function pickedSpeaker() {
  const p = parts();
  if (!p.select) { return { name: "", other: false }; }
  if (otherPicked(p.select)) { return { name: p.name ? p.name.value : "", other: true }; }
  return { name: p.select.value, other: false };
}

function showOther() {
  const p = parts();
  if (p.other) { p.other.hidden = !otherPicked(p.select); }
}

function keep() { remember("sessionStorage", key(), JSON.stringify(pickedSpeaker())); }

// The speaker kept for this scene back in the picker (a character no longer offered: the
// member themself).
export function restoreSpeaker() {
  const p = parts();
  const kept = readKept(recall("sessionStorage", key()));
  if (!p.select || !kept) { showOther(); return; }
  const options = Array.prototype.slice.call(p.select.options);
  const found = options.filter(function (option) {
    return kept.other ? option.hasAttribute("data-speaking-other")
      : !option.hasAttribute("data-speaking-other") && option.value === kept.name;
  })[0];
  p.select.selectedIndex = found ? options.indexOf(found) : 0;
  if (found && kept.other && p.name) { p.name.value = kept.name; }
  showOther();
}

export function listen() {
  document.addEventListener("change", function (evt) {
    if (evt.target && evt.target.id === "speaking-as") {
      showOther();
      keep();
      const p = parts();
      if (otherPicked(p.select) && p.name && !p.name.value) { p.name.focus(); }
    }
  });
  document.addEventListener("input", function (evt) {
    if (evt.target && evt.target.id === "speaking-as-name") { keep(); }
  });
}
