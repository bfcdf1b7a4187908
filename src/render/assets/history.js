// The version matrix: search by name, filter by path, change and group; renders
// the matching rows in pages so a phone stays fast on thousands of rows.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("cm-data").textContent);
  var cols = data.columns, rows = data.rows;
  var PAGE = 300, shown = PAGE;
  var q = document.getElementById("cm-q"), pathSel = document.getElementById("cm-path");
  var kindSel = document.getElementById("cm-kind"), groupSel = document.getElementById("cm-group");
  var count = document.getElementById("cm-count"), more = document.getElementById("cm-more");
  var thead = document.querySelector("#cm-table thead"), tbody = document.querySelector("#cm-table tbody");
  // Row layout: [name, public, operator, group, path, kind, summary, statuses, causes].
  function option(select, value) {
    var o = document.createElement("option");
    o.value = value; o.textContent = value; select.appendChild(o);
  }
  data.paths.forEach(function (p) { option(pathSel, p); });
  data.groups.forEach(function (g) { option(groupSel, g); });
  var head = "<tr><th scope=\"col\">Operator</th><th scope=\"col\">Path</th>";
  cols.forEach(function (c) {
    head += "<th scope=\"col\"" + (c.reference ? " class=\"cm-ref\"" : "") + " title=\"" +
      esc(c.environment) + "\">" + esc(c.label) + (c.sample ? " (sample)" : "") + "</th>";
  });
  thead.innerHTML = head + "<th scope=\"col\">Where it works</th></tr>";
  // The table's box is as tall as the screen below the toolbar, whatever the toolbar's height.
  var toolbar = document.querySelector(".cm-toolbar");
  function measureToolbar() {
    document.documentElement.style.setProperty("--cm-toolbar-h", Math.ceil(toolbar.getBoundingClientRect().height) + "px");
  }
  if (window.ResizeObserver) new ResizeObserver(measureToolbar).observe(toolbar); else measureToolbar();
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" }[c];
    });
  }
  function matches(r, words) {
    if (pathSel.value && r[4] !== pathSel.value) return false;
    if (kindSel.value && r[5] !== kindSel.value) return false;
    if (groupSel.value && r[3] !== groupSel.value) return false;
    var hay = (r[0] + " " + r[1] + " " + r[2]).toLowerCase();
    for (var i = 0; i < words.length; i++) if (hay.indexOf(words[i]) < 0) return false;
    return true;
  }
  function cell(status, cause, ref) {
    if (status === null) return "<td" + (ref ? " class=\"cm-ref\"" : "") + ">—</td>";
    var cls = "st st-" + status.replace(/[^a-z-]/g, "").replace("n/a", "na");
    return "<td" + (ref ? " class=\"cm-ref\"" : "") + "><span class=\"" + cls + "\"" +
      (cause ? " title=\"" + esc(cause) + "\"" : "") + ">" + esc(status) + "</span></td>";
  }
  function render() {
    var words = q.value.toLowerCase().split(/\s+/).filter(Boolean);
    var hits = rows.filter(function (r) { return matches(r, words); });
    var html = "";
    hits.slice(0, shown).forEach(function (r) {
      html += "<tr class=\"k-" + r[5] + "\"><td class=\"cm-op\">" + esc(r[0]) +
        (r[1] ? "<small>" + esc(r[1]) + "</small>" : "") + "</td><td>" + esc(r[4]) + "</td>";
      for (var i = 0; i < cols.length; i++) html += cell(r[7][i], r[8][i], cols[i].reference);
      html += "<td class=\"cm-sum\">" + esc(r[6]) + "</td></tr>";
    });
    tbody.innerHTML = html;
    count.textContent = hits.length + " of " + rows.length + " operator × path rows";
    more.hidden = hits.length <= shown;
  }
  function restart() { shown = PAGE; render(); }
  [q, pathSel, kindSel, groupSel].forEach(function (el) {
    el.addEventListener(el === q ? "input" : "change", restart);
  });
  more.addEventListener("click", function () { shown += PAGE; render(); });
  var hash = decodeURIComponent(location.hash.slice(1));
  if (hash) q.value = hash;
  render();
  document.documentElement.setAttribute("data-capmap-complete", "");
})();
