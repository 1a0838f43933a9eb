// perfpin's HTML report: draws each chart from the page's data with uPlot, then says so in the body's data-plots
// ("drawn N"), or says the first script error there.
(function () {
  "use strict";
  var body = document.body;
  window.addEventListener("error", function (e) {
    body.dataset.plots = "error: " + e.message;
  });
  function format(value, unit) {
    if (value == null || !isFinite(value)) {
      return "-";
    }
    if (unit === "SHARE") {
      return (value * 100).toPrecision(3) + "%";
    }
    var magnitude = Math.abs(value);
    var text = magnitude >= 1e9 ? (value / 1e9).toPrecision(3) + "G" : magnitude >= 1e6
      ? (value / 1e6).toPrecision(3) + "M" : magnitude >= 1e3 ? (value / 1e3).toPrecision(3) + "k"
      : magnitude === 0 ? "0" : value.toPrecision(3);
    return unit === "PER_SECOND" ? text + "/s" : text;
  }
  try {
    var data = JSON.parse(document.getElementById("perfpin-data").textContent);
    var drawn = 0;
    data.charts.forEach(function (chart) {
      var element = document.getElementById(chart.id);
      var aligned = uPlot.join(chart.lines.map(function (line) { return [line.x, line.y]; }));
      var series = [{label: "s"}].concat(chart.lines.map(function (line) {
        return {
          label: line.label,
          stroke: line.color,
          width: 1.5,
          spanGaps: true,
          points: {show: line.x.length < 40},
          value: function (u, v) { return format(v, chart.unit); }
        };
      }));
      new uPlot({
        title: chart.title,
        width: 420,
        height: 200,
        scales: {x: {time: false}},
        series: series,
        legend: {show: chart.lines.length > 1},
        axes: [
          {label: "seconds since the recording began", labelSize: 20, size: 40},
          {size: 64, values: function (u, values) { return values.map(function (v) { return format(v, chart.unit); }); }}
        ]
      }, aligned, element);
      drawn++;
    });
    body.dataset.plots = "drawn " + drawn;
  } catch (e) {
    body.dataset.plots = "error: " + e;
  }
})();
