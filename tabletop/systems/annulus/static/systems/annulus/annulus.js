// The operation challenge view is re-rendered after every move at the table: keep the sections
// this browser opened (toolkit, setup) open across those swaps. No eval, no inline script.
(function () {
  "use strict";

  var open = {};

  // "toggle" does not bubble: listen in the capture phase.
  document.addEventListener("toggle", function (evt) {
    var el = evt.target;
    if (el.matches && el.matches("#procedure-challenge details[data-keep]")) {
      open[el.getAttribute("data-keep")] = el.open;
    }
  }, true);

  document.body.addEventListener("htmx:wsAfterMessage", function () {
    document.querySelectorAll("#procedure-challenge details[data-keep]").forEach(function (el) {
      var key = el.getAttribute("data-keep");
      if (Object.prototype.hasOwnProperty.call(open, key) && el.open !== open[key]) {
        el.open = open[key];
      }
    });
  });
})();
