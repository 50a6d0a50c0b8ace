// Draws each chart from the table beside it, so the picture and the numbers cannot differ: a
// <div class="chart" data-table="ID"> takes the table with that id, whose rows carry the period
// in data-t (seconds since the epoch) and each series' figure in data-v. Without script the table
// alone is shown.
(function () {
  'use strict';
  var COLOURS = ['#0b57a4', '#9a3412', '#15803d', '#7e22ce', '#b45309', '#0e7490', '#be123c'];

  function seriesOf(table) {
    var heads = table.querySelectorAll('thead th[data-series]');
    var rows = table.querySelectorAll('tbody tr[data-t]');
    var data = [[]];
    var series = [{}];
    heads.forEach(function (th, i) {
      data.push([]);
      series.push({
        label: th.textContent.trim(),
        stroke: COLOURS[i % COLOURS.length],
        width: 2,
      });
    });
    rows.forEach(function (tr) {
      data[0].push(Number(tr.getAttribute('data-t')));
      var cells = tr.querySelectorAll('td[data-v]');
      heads.forEach(function (_th, i) {
        var cell = cells[i];
        data[i + 1].push(cell ? Number(cell.getAttribute('data-v')) : null);
      });
    });
    return { data: data, series: series };
  }

  function draw(element) {
    var table = document.getElementById(element.getAttribute('data-table'));
    if (!table || typeof uPlot === 'undefined') return;
    var s = seriesOf(table);
    if (s.data[0].length === 0) return;
    element.textContent = '';
    var width = Math.max(320, element.clientWidth || 800);
    new uPlot(
      {
        width: width,
        height: 300,
        series: s.series,
        axes: [{}, { label: element.getAttribute('data-unit') || '' }],
      },
      s.data,
      element,
    );
  }

  function drawAll(root) {
    (root || document).querySelectorAll('.chart[data-table]').forEach(draw);
  }

  document.addEventListener('DOMContentLoaded', function () {
    drawAll(document);
  });
  // htmx replaces the page's body on boosted navigation: draw the new page's charts too.
  document.addEventListener('htmx:afterSettle', function () {
    drawAll(document);
  });
})();
