// Dice statistics: one bar chart per kind of roll, rolled against the exact expected counts.
// The numbers come from the page's JSON data block (json_script: no inline script, CSP); the
// same numbers are in a table next to each chart for screen readers and for copying.
(function () {
  "use strict";

  function colour(style, name, fallback) {
    var value = style.getPropertyValue(name).trim();
    return value || fallback;
  }

  function draw() {
    var block = document.getElementById("stats-charts");
    if (!block || typeof window.Chart === "undefined") return;
    var charts = JSON.parse(block.textContent);
    var style = window.getComputedStyle(document.body);
    var rolled = colour(style, "--pico-primary", "#00895a");
    var expected = colour(style, "--pico-muted-color", "#646b79");
    var text = colour(style, "--pico-color", "#373c44");
    var grid = colour(style, "--pico-muted-border-color", "#e7eaf0");
    window.Chart.defaults.color = text;
    window.Chart.defaults.borderColor = grid;
    charts.forEach(function (chart) {
      var canvas = document.getElementById(chart.id);
      if (!canvas) return;
      new window.Chart(canvas, {
        type: "bar",
        data: {
          labels: chart.labels,
          datasets: [
            { label: "Rolled", data: chart.observed, backgroundColor: rolled },
            {
              label: "Expected (exact odds)",
              data: chart.expected,
              backgroundColor: "transparent",
              borderColor: expected,
              borderWidth: 2,
            },
          ],
        },
        options: {
          responsive: true,
          maintainAspectRatio: false,
          animation: false,
          plugins: { legend: { position: "bottom" } },
          scales: {
            y: { beginAtZero: true, title: { display: true, text: "rolls" } },
            x: { ticks: { autoSkip: true, maxRotation: 45 } },
          },
        },
      });
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", draw);
  } else {
    draw();
  }
})();
