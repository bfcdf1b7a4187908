// The case explorer: search, filters and counts over the cases embedded as
// JSON. Builds the case tables (HTML page) or adopts the tables Sphinx wrote
// from the same data (data-mode="adopt"). Every snapshot text goes through
// textContent, never through HTML parsing.
(function () {
  "use strict";
  var FAIL = { fail: 1, mismatch: 1, specialized: 1, crashed: 1, timeout: 1, oom: 1 };
  var PASS = { ok: 1, "ok-breaks": 1, "ok-unverified": 1 };
  var LABEL = { "ok-breaks": "ok, breaks", "ok-unverified": "ok, unverified" };

  // In a Sphinx page the script precedes the tables it adopts.
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }

  function start() {
    var dataNode = document.getElementById("capmap-data");
    var mount = document.getElementById("capmap-app");
    if (!dataNode || !mount) return;
    var data = JSON.parse(dataNode.textContent);
    var paths = data.paths;
    var cases = data.cases;
    var sections = data.sections;
    var adopt = mount.getAttribute("data-mode") === "adopt";
    // The status line says when the run measured only part of the registry.
    var selectionNote = data.selection ? " · the run measured " + data.selection : "";

    function el(tag, className, text) {
      var node = document.createElement(tag);
      if (className) node.className = className;
      if (text !== undefined && text !== null) node.textContent = String(text);
      return node;
    }
    function statusClass(s) {
      return !s || s === "n/a" ? "st-na" : "st-" + s.replace(/[^a-z0-9-]/g, "-");
    }

    // Views are bits of a per-case mask so counting every view is one pass.
    var views = [{ id: "all", label: "Every case" }, { id: "fail", label: "Any failure" }];
    paths.forEach(function (p) {
      views.push({ id: "fail-" + p.id, label: p.label + " fails" });
    });
    views.push({ id: "breaks", label: "Graph breaks" });
    views.push({ id: "allok", label: paths.length === 3 ? "All three ok" : "All paths ok" });
    var viewBit = {};
    views.forEach(function (v, i) { viewBit[v.id] = 1 << i; });

    var sectionOf = new Array(cases.length);
    sections.forEach(function (s, si) {
      s.cases.forEach(function (ci) { sectionOf[ci] = si; });
    });

    // Fills in what the data leaves out because a template or the section gives it.
    function expand(template, values) {
      return template.replace(/\{(revision|path|line|ref)\}/g, function (whole, key) {
        return values[key] !== undefined ? values[key] : whole;
      });
    }
    function derive(c, ci) {
      if (c.n === undefined) c.n = c.v ? c.o + "[" + c.v + "]" : c.o;
      c.k = sections[sectionOf[ci]].package;
      if (c.u === undefined && data.docs_url && c.ref) c.u = expand(data.docs_url, { ref: c.ref });
      c.c.forEach(function (cause) {
        var at = cause.l ? /^(.*):(\d+)$/.exec(cause.l) : null;
        if (cause.h === undefined && data.source_url && at) {
          cause.h = expand(data.source_url, { revision: data.revision, path: at[1], line: at[2] });
        }
      });
    }

    var categoryNames = [];
    var packageNames = [];
    cases.forEach(function (c, ci) {
      derive(c, ci);
      var parts = [c.n, c.o, c.v || "", c.note || "", c.ref || "", (c.fl || []).join("\n")];
      var cats = [];
      var texts = [];
      c.c.forEach(function (cause) {
        parts.push(cause.t, cause.l || "", cause.g);
        if (cats.indexOf(cause.g) < 0) cats.push(cause.g);
        if (texts.indexOf(cause.t) < 0) texts.push(cause.t);
        if (categoryNames.indexOf(cause.g) < 0) categoryNames.push(cause.g);
      });
      if (packageNames.indexOf(c.k) < 0) packageNames.push(c.k);
      c.search = parts.join("\n").toLowerCase();
      c.cats = cats;
      c.texts = texts;
      var mask = viewBit.all;
      var anyFail = false;
      var allOk = c.st.length > 0;
      var breaks = c.gb > 0;
      c.st.forEach(function (s, pi) {
        if (FAIL[s]) { anyFail = true; mask |= viewBit["fail-" + paths[pi].id]; }
        if (!PASS[s]) allOk = false;
        if (s === "ok-breaks") breaks = true;
      });
      if (anyFail) mask |= viewBit.fail;
      if (breaks) mask |= viewBit.breaks;
      if (allOk) mask |= viewBit.allok;
      c.mask = mask;
    });
    categoryNames.sort();
    packageNames.sort();

    var state = { q: "", view: "all", cat: "", pkg: "", cause: "" };

    // Controls.
    var controls = el("div", "cm-controls");
    var searchLabel = el("label", "", "Search");
    var search = el("input");
    search.type = "search";
    search.id = "cm-q";
    search.placeholder = "operator, variant, note or cause";
    search.autocomplete = "off";
    search.setAttribute("aria-controls", "cm-tables");
    searchLabel.appendChild(search);
    controls.appendChild(searchLabel);

    function makeSelect(id, label, anyText, names) {
      var wrap = el("label", "", label);
      var select = el("select");
      select.id = id;
      var any = el("option", "", anyText);
      any.value = "";
      select.appendChild(any);
      var options = {};
      names.forEach(function (name) {
        var option = el("option", "", name);
        option.value = name;
        select.appendChild(option);
        options[name] = option;
      });
      wrap.appendChild(select);
      controls.appendChild(wrap);
      return { select: select, options: options };
    }
    var catSelect = makeSelect("cm-cat", "Cause category", "any category", categoryNames);
    var pkgSelect = makeSelect("cm-pkg", "Package", "every package", packageNames);
    var reset = el("button", "cm-reset", "Reset");
    reset.type = "button";
    controls.appendChild(reset);

    var viewBar = el("div", "cm-views");
    viewBar.setAttribute("role", "group");
    viewBar.setAttribute("aria-label", "Show");
    var viewButtons = views.map(function (v) {
      var button = el("button");
      button.type = "button";
      button.setAttribute("data-view", v.id);
      button.appendChild(el("span", "", v.label + " "));
      var n = el("span", "n", "");
      button.appendChild(n);
      button.countNode = n;
      viewBar.appendChild(button);
      return button;
    });

    var chip = el("p", "cm-chip");
    chip.hidden = true;
    var chipText = el("span");
    var chipClear = el("button", "", "Clear cause");
    chipClear.type = "button";
    chip.appendChild(chipText);
    chip.appendChild(chipClear);

    var status = el("p", "cm-status");
    status.id = "cm-status";
    status.setAttribute("role", "status");
    status.setAttribute("aria-live", "polite");
    search.setAttribute("aria-describedby", "cm-status");

    mount.appendChild(controls);
    mount.appendChild(viewBar);
    mount.appendChild(chip);
    mount.appendChild(status);

    // Rows: one per case, built once; filtering only toggles `hidden`.
    var rows = new Array(cases.length);
    var sectionNodes = new Array(sections.length);
    var sectionCounts = new Array(sections.length);

    function causeNode(cause) {
      var line = el("div", "cause");
      line.title = cause.g;
      line.appendChild(el("b", "", cause.p.map(function (i) { return paths[i].short; }).join(", ")));
      line.appendChild(document.createTextNode(": " + cause.t));
      if (cause.l) {
        line.appendChild(document.createTextNode(" ("));
        var loc;
        if (cause.h) {
          loc = el("a", "loc", cause.l);
          loc.href = cause.h;
        } else {
          loc = el("span", "loc", cause.l);
        }
        line.appendChild(loc);
        line.appendChild(document.createTextNode(")"));
      }
      return line;
    }

    // A failing path checked by `capmap repro --check`: a mark (reproduced or not)
    // and a "repro" button that shows its script in a dialog with a copy button.
    function reproControls(c, pi, td) {
      var check = null;
      (c.r || []).forEach(function (r) { if (r[0] === pi) check = r; });
      if (!check) return;
      var mark = el("span", "cm-repro-mark " + (check[1] ? "yes" : "no"), check[1] ? "\u2713" : "\u2717");
      mark.title = (check[1] ? "Reproduced outside capmap: " : "Did not reproduce outside capmap: ") + check[2];
      td.appendChild(mark);
      var button = el("button", "cm-repro", "repro");
      button.type = "button";
      button.setAttribute("aria-label", "Repro script for " + c.n + ", " + paths[pi].label);
      button.addEventListener("click", function () { showRepro(c, pi, check); });
      td.appendChild(button);
    }

    var reproDialog = null;
    function showRepro(c, pi, check) {
      if (!reproDialog) {
        reproDialog = el("dialog", "cm-repro-dialog");
        reproDialog.id = "cm-repro-dialog";
        reproDialog.setAttribute("aria-labelledby", "cm-repro-title");
        document.body.appendChild(reproDialog);
      }
      var script = check[3] + (check[4] >= 0 ? data.rt[check[4]] : "");
      reproDialog.textContent = "";
      var title = el("h3", "", "Repro: " + c.n + " \u00b7 " + paths[pi].label);
      title.id = "cm-repro-title";
      reproDialog.appendChild(title);
      reproDialog.appendChild(el("p", "cm-repro-verdict",
        (check[1] ? "Reproduced outside capmap: " : "Did not reproduce outside capmap: ") + check[2]));
      var command = "capmap repro '" + c.n + "' --path " + paths[pi].id;
      reproDialog.appendChild(el("p", "cm-hint", "Write it with its inputs file: " + command));
      var pre = el("pre", "cm-repro-script");
      pre.appendChild(el("code", "", script));
      reproDialog.appendChild(pre);
      var copy = el("button", "cm-repro-copy", "Copy");
      copy.type = "button";
      copy.addEventListener("click", function () {
        function done(ok) { copy.textContent = ok ? "Copied" : "Select the script and copy it"; }
        if (navigator.clipboard && navigator.clipboard.writeText) {
          navigator.clipboard.writeText(script).then(function () { done(true); }, function () { done(fallback()); });
        } else {
          done(fallback());
        }
        function fallback() {
          var range = document.createRange();
          range.selectNodeContents(pre);
          var selection = window.getSelection();
          selection.removeAllRanges();
          selection.addRange(range);
          try { return document.execCommand("copy"); } catch (e) { return false; }
        }
      });
      var close = el("button", "cm-repro-close", "Close");
      close.type = "button";
      close.addEventListener("click", function () { reproDialog.close(); });
      var actions = el("p", "cm-repro-actions");
      actions.appendChild(copy);
      actions.appendChild(close);
      reproDialog.appendChild(actions);
      if (reproDialog.showModal) reproDialog.showModal(); else reproDialog.setAttribute("open", "");
      copy.focus();
    }

    function buildRow(c) {
      var tr = document.createElement("tr");
      var op = el("td", "op");
      var code = el("code", "", c.o);
      if (c.u) {
        var link = el("a");
        link.href = c.u;
        link.appendChild(code);
        op.appendChild(link);
      } else {
        op.appendChild(code);
      }
      if (c.note) op.appendChild(el("span", "note", c.note));
      // What the capture wrapper opened, so a reader knows the graph's edges are tensors.
      if (c.fl) op.appendChild(el("span", "note flattened", "flattened: " + c.fl.join("; ")));
      tr.appendChild(op);
      tr.appendChild(el("td", "", c.v || ""));
      c.st.forEach(function (s, pi) {
        var td = el("td");
        td.appendChild(el("span", "badge " + statusClass(s), LABEL[s] || s));
        reproControls(c, pi, td);
        tr.appendChild(td);
      });
      tr.appendChild(el("td", "num", c.gb === undefined ? "" : c.gb));
      var causes = el("td", "causes");
      c.c.forEach(function (cause) { causes.appendChild(causeNode(cause)); });
      tr.appendChild(causes);
      return tr;
    }

    // Rows appear in display order: the first screenful at once, the rest in
    // short tasks so the page paints early and stays responsive while it fills.
    var FIRST_ROWS = 120;
    var ROWS_PER_TASK = 300;
    var bodies = new Array(sections.length);
    var displayOrder = [];
    sections.forEach(function (s) { displayOrder.push.apply(displayOrder, s.cases); });
    var built = 0;
    var visibleNow = new Array(cases.length).fill(true);

    function buildRows(limit) {
      var end = Math.min(displayOrder.length, built + limit);
      var frag = null;
      var fragSection = -1;
      for (; built < end; built++) {
        var ci = displayOrder[built];
        if (sectionOf[ci] !== fragSection) {
          if (frag) bodies[fragSection].appendChild(frag);
          frag = document.createDocumentFragment();
          fragSection = sectionOf[ci];
        }
        var tr = buildRow(cases[ci]);
        tr.hidden = !visibleNow[ci];
        rows[ci] = tr;
        frag.appendChild(tr);
      }
      if (frag) bodies[fragSection].appendChild(frag);
    }

    function buildRest() {
      buildRows(ROWS_PER_TASK);
      if (built < displayOrder.length) {
        setTimeout(buildRest, 0);
      } else {
        document.documentElement.setAttribute("data-capmap-complete", "1");
        if (window.performance && performance.mark) performance.mark("capmap-complete");
      }
    }

    if (adopt) {
      var tables = document.querySelectorAll("table.capmap-cases");
      if (tables.length === sections.length) {
        sections.forEach(function (s, si) {
          var trs = tables[si].tBodies.length ? tables[si].tBodies[0].rows : [];
          s.cases.forEach(function (ci, j) { rows[ci] = trs[j]; });
          sectionNodes[si] = tables[si].closest("section") || tables[si];
        });
      }
    } else {
      var container = el("div");
      container.id = "cm-tables";
      sections.forEach(function (s, si) {
        var sec = el("section", "cm-sec");
        var h = el("h3", "", s.title + " ");
        var count = el("span", "n", "");
        h.appendChild(count);
        sec.appendChild(h);
        var wrap = el("div", "cm-scroll");
        var table = el("table", "cm-cases");
        table.setAttribute("aria-label", s.title);
        var head = el("thead");
        var hr = el("tr");
        var columns = [["Operator", "op"], ["Variant", "var"]];
        paths.forEach(function (p) { columns.push([p.label, "path"]); });
        columns.push(["Graph breaks", "gb"], ["Causes", "why"]);
        columns.forEach(function (column) {
          var th = el("th", column[1], column[0]);
          th.scope = "col";
          hr.appendChild(th);
        });
        head.appendChild(hr);
        table.appendChild(head);
        var body = el("tbody");
        bodies[si] = body;
        table.appendChild(body);
        wrap.appendChild(table);
        sec.appendChild(wrap);
        container.appendChild(sec);
        sectionNodes[si] = sec;
        sectionCounts[si] = count;
      });
      mount.appendChild(container);
    }
    var usable = true;
    if (adopt) {
      for (var r = 0; r < rows.length; r++) if (!rows[r]) usable = false;
    }
    var sectionHidden = new Array(sections.length).fill(false);

    function validView(id) { return viewBit[id] !== undefined; }

    function readFragment() {
      var params = new URLSearchParams(location.hash.replace(/^#/, ""));
      state.q = params.get("q") || "";
      state.view = validView(params.get("view")) ? params.get("view") : "all";
      state.cat = params.get("cat") || "";
      state.pkg = params.get("pkg") || "";
      state.cause = params.get("cause") || "";
    }

    var lastFragment = null;
    function writeFragment() {
      var params = new URLSearchParams();
      if (state.q) params.set("q", state.q);
      if (state.view !== "all") params.set("view", state.view);
      if (state.cat) params.set("cat", state.cat);
      if (state.pkg) params.set("pkg", state.pkg);
      if (state.cause) params.set("cause", state.cause);
      var text = params.toString();
      if (text === lastFragment) return;
      lastFragment = text;
      var url = text ? "#" + text : location.pathname + location.search;
      try {
        history.replaceState(null, "", url);
      } catch (e) {
        location.replace("#" + text);
      }
    }

    function syncControls() {
      if (search.value !== state.q) search.value = state.q;
      catSelect.select.value = catSelect.options[state.cat] ? state.cat : "";
      pkgSelect.select.value = pkgSelect.options[state.pkg] ? state.pkg : "";
      chip.hidden = !state.cause;
      chipText.textContent = state.cause ? "Cause: " + state.cause : "";
    }

    function setText(node, text) {
      if (node.textContent !== text) node.textContent = text;
    }

    function apply() {
      var terms = state.q.toLowerCase().split(/\s+/).filter(Boolean);
      var bit = viewBit[state.view];
      var viewCounts = views.map(function () { return 0; });
      var catCounts = {};
      var pkgCounts = {};
      var perSection = new Array(sections.length).fill(0);
      var shown = 0;
      for (var i = 0; i < cases.length; i++) {
        var c = cases[i];
        var match = true;
        for (var t = 0; t < terms.length && match; t++) match = c.search.indexOf(terms[t]) >= 0;
        if (match && state.cause) match = c.texts.indexOf(state.cause) >= 0;
        var visible = false;
        if (match) {
          var inPkg = !state.pkg || c.k === state.pkg;
          var inCat = !state.cat || c.cats.indexOf(state.cat) >= 0;
          var inView = (c.mask & bit) !== 0;
          if (inPkg && inCat) {
            for (var v = 0; v < views.length; v++) if (c.mask & (1 << v)) viewCounts[v]++;
          }
          if (inPkg && inView) {
            for (var g = 0; g < c.cats.length; g++) catCounts[c.cats[g]] = (catCounts[c.cats[g]] || 0) + 1;
          }
          if (inCat && inView) pkgCounts[c.k] = (pkgCounts[c.k] || 0) + 1;
          visible = inPkg && inCat && inView;
        }
        if (visible) {
          shown++;
          perSection[sectionOf[i]]++;
        }
        if (visibleNow[i] !== visible) {
          visibleNow[i] = visible;
          if (usable && rows[i]) rows[i].hidden = !visible;
        }
      }
      if (usable) {
        for (var s = 0; s < sections.length; s++) {
          var empty = perSection[s] === 0;
          if (sectionHidden[s] !== empty) {
            sectionNodes[s].hidden = empty;
            sectionHidden[s] = empty;
          }
          if (sectionCounts[s]) {
            setText(sectionCounts[s], "(" + perSection[s] + " of " + sections[s].cases.length + ")");
          }
        }
      }
      viewButtons.forEach(function (button, v) {
        button.setAttribute("aria-pressed", views[v].id === state.view ? "true" : "false");
        setText(button.countNode, String(viewCounts[v]));
      });
      categoryNames.forEach(function (name) {
        setText(catSelect.options[name], name + " (" + (catCounts[name] || 0) + ")");
      });
      packageNames.forEach(function (name) {
        setText(pkgSelect.options[name], (name || "(no package)") + " (" + (pkgCounts[name] || 0) + ")");
      });
      setText(status, "Showing " + shown + " of " + cases.length + " cases" + selectionNote);
      status.setAttribute("data-shown", String(shown));
      writeFragment();
    }

    function update(change) {
      for (var key in change) state[key] = change[key];
      syncControls();
      apply();
    }

    search.addEventListener("input", function () { update({ q: search.value }); });
    catSelect.select.addEventListener("change", function () { update({ cat: catSelect.select.value }); });
    pkgSelect.select.addEventListener("change", function () { update({ pkg: pkgSelect.select.value }); });
    viewButtons.forEach(function (button) {
      button.addEventListener("click", function () { update({ view: button.getAttribute("data-view") }); });
    });
    chipClear.addEventListener("click", function () { update({ cause: "" }); search.focus(); });
    reset.addEventListener("click", function () {
      update({ q: "", view: "all", cat: "", pkg: "", cause: "" });
      search.focus();
    });
    function jumpToCases() {
      mount.scrollIntoView({ block: "start" });
      search.focus({ preventScroll: true });
    }
    document.querySelectorAll("button[data-cause]").forEach(function (button) {
      button.addEventListener("click", function () {
        update({ cause: button.getAttribute("data-cause"), view: "all", q: "" });
        jumpToCases();
      });
    });
    document.querySelectorAll("button[data-package]").forEach(function (button) {
      button.addEventListener("click", function () {
        update({ pkg: button.getAttribute("data-package") });
        jumpToCases();
      });
    });
    window.addEventListener("hashchange", function () {
      if (location.hash.replace(/^#/, "") === lastFragment) return;
      readFragment();
      syncControls();
      apply();
    });
    document.addEventListener("keydown", function (event) {
      var target = event.target;
      var typing = target && /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName);
      if (event.key === "/" && !typing) {
        event.preventDefault();
        search.focus();
      }
    });

    readFragment();
    syncControls();
    apply();
    if (adopt) {
      document.documentElement.setAttribute("data-capmap-complete", "1");
    } else {
      buildRows(FIRST_ROWS);
      setTimeout(buildRest, 0);
    }
    document.documentElement.setAttribute("data-capmap-ready", "1");
    if (window.performance && performance.mark) performance.mark("capmap-ready");
  }
})();
