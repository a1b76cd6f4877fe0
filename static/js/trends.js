// Trend page: draws the server-built plotly figure and lets the legend table toggle series.
(function () {
  function start() {
    const chart = document.getElementById("trend-chart");
    const source = document.getElementById("trend-figure");
    if (!chart || !source || !window.Plotly) return;
    const figure = JSON.parse(source.textContent);
    Plotly.newPlot(chart, figure.data, figure.layout, { responsive: true, displaylogo: false });
    chart.dataset.rendered = "true";

    function setVisible(seriesKey, visible) {
      const indexes = [];
      figure.data.forEach((trace, index) => { if (trace.meta === seriesKey) indexes.push(index); });
      if (indexes.length) Plotly.restyle(chart, { visible: visible }, indexes);
    }
    document.querySelectorAll("[data-toggle-series]").forEach((box) => {
      box.addEventListener("change", () => setVisible(box.dataset.toggleSeries, box.checked));
    });
    document.querySelectorAll("[data-legend-all]").forEach((button) => {
      button.addEventListener("click", () => {
        const on = button.dataset.legendAll === "on";
        document.querySelectorAll("[data-toggle-series]").forEach((box) => {
          box.checked = on;
          setVisible(box.dataset.toggleSeries, on);
        });
      });
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
