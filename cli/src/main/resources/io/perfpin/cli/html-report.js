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
  function width(element) {
    return Math.max(300, element.clientWidth - 2);
  }
  try {
    var data = JSON.parse(document.getElementById("perfpin-data").textContent);
    var drawn = 0;
    var plots = [];
    data.charts.forEach(function (chart) {
      var element = document.getElementById(chart.id);
      var aligned = uPlot.join(chart.lines.map(function (line) { return [line.x, line.y]; }));
      // Off the plot, the legend says each line's mean, so that it names the recording and a value at any time.
      var series = [{
        label: "seconds",
        value: function (u, v, s, idx) {
          var x = u.data[0];
          return idx == null ? x[0].toFixed(1) + "\u2013" + x[x.length - 1].toFixed(1) : v.toFixed(2);
        }
      }].concat(chart.lines.map(function (line) {
        var finite = line.y.filter(function (v) { return v != null && isFinite(v); });
        var mean = finite.reduce(function (a, b) { return a + b; }, 0) / finite.length;
        return {
          label: line.label,
          stroke: line.color,
          dash: line.dash ? [5, 4] : undefined,
          width: 1.5,
          spanGaps: true,
          points: {show: line.x.length < 40},
          value: function (u, v, s, idx) { return idx == null ? "mean " + format(mean, chart.unit) : format(v, chart.unit); }
        };
      }));
      plots.push({element: element, plot: new uPlot({
        title: chart.title,
        width: width(element),
        height: 220,
        scales: {x: {time: false}},
        series: series,
        axes: [
          {label: "seconds since the recording began", labelSize: 20, size: 40},
          {size: 64, values: function (u, values) { return values.map(function (v) { return format(v, chart.unit); }); }}
        ]
      }, aligned, element)});
      drawn++;
    });
    // Each plot as wide as its column of the page, again when the window changes.
    window.addEventListener("resize", function () {
      plots.forEach(function (p) { p.plot.setSize({width: width(p.element), height: 220}); });
    });
    body.dataset.plots = "drawn " + drawn;
  } catch (e) {
    body.dataset.plots = "error: " + e;
  }
})();
