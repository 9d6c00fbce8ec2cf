// No unit test: DOM wiring only, with no decision of its own to test without a page.
// The page's own facts, read where they are kept: the scene (#scene, which carries the viewer's
// user id and the scene's id), its log, and what this browser remembers per scene (the tab, the
// table-wide roll mode, whose sheet), kept quietly out of storage a private window refuses.

export function scene() { return document.getElementById("scene"); }

export function log() { return document.getElementById("scene-log"); }

// The viewer, as the page's controls name them (data-only-for, data-rtt-for).
export function me() { return (scene() || document.body).getAttribute("data-user"); }

// A key of this scene's: "tabletop:<what>:<scene id>".
export function sceneKey(what) {
  const root = scene();
  return "tabletop:" + what + ":" + ((root && root.getAttribute("data-scene")) || "");
}

// area: "sessionStorage" (this tab) or "localStorage" (this browser).
export function recall(area, key) {
  try { return window[area].getItem(key); } catch (e) { return null; }  // private mode
}

export function remember(area, key, value) {
  try { window[area].setItem(key, value); } catch (e) { /* private mode */ }
}
