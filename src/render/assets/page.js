// The case explorer: search, filters and counts over the cases embedded as
// JSON. Builds the case tables (HTML page) or adopts the tables Sphinx wrote
// from the same data (data-mode="adopt"). Every snapshot text goes through
// textContent, never through HTML parsing.
(function () {
  "use strict";
  var FAIL = { fail: 1, mismatch: 1, specialized: 1, crashed: 1, timeout: 1, oom: 1 };
  var PASS = { ok: 1, "ok-breaks": 1, "ok-unverified": 1 };
  var LABEL = { "ok-breaks": "ok, breaks", "ok-unverified": "ok, unverified" };
  // Wide screens show every filter; narrow ones fold them behind a button.
  var NARROW = "(max-width: 699px)";

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
    // A result that is not http(s) or relative (javascript:, data:, ...) is no link.
    function expand(template, values) {
      var url = template.replace(/\{(revision|path|line|ref)\}/g, function (whole, key) {
        return values[key] !== undefined ? values[key] : whole;
      });
      if (/[\x00-\x20\x7f]/.test(url)) return "";
      if (/^https?:\/\//i.test(url)) return url;
      return url.split(/[\/?#]/)[0].indexOf(":") < 0 ? url : "";
    }
    function derive(c, ci) {
      if (c.n === undefined) c.n = c.v ? c.o + "[" + c.v + "]" : c.o;
      c.k = sections[sectionOf[ci]].package;
      // The public name: the section's package and the operator unless the data says.
      if (c.pn === undefined) c.pn = data.root + "." + sections[sectionOf[ci]].title + "." + c.o;
      // Where it is defined: the ref, with the method of a class case.
      c.dn = c.ref || "";
      var dot = c.o.indexOf(".");
      if (c.ref && dot > 0 && c.ref.slice(c.ref.lastIndexOf(".") + 1) === c.o.slice(0, dot)) {
        c.dn = c.ref + c.o.slice(dot);
      }
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
    function addOnce(list, item) { if (list.indexOf(item) < 0) list.push(item); }
    cases.forEach(function (c, ci) {
      derive(c, ci);
      // Every name the operator is reachable by: the public one (whose tail is the
      // "transform.warp_perspective" a reader types), where it is defined, and the case's own.
      var parts = [c.n, c.pn, c.dn, c.v || "", c.note || "", (c.fl || []).join("\n")];
      var cats = [];
      var failCats = [];
      var breakCats = [];
      var pathCats = paths.map(function () { return []; });
      var texts = [];
      c.c.forEach(function (cause) {
        parts.push(cause.t, cause.l || "", cause.g);
        addOnce(cats, cause.g);
        if (!cause.k) {
          addOnce(failCats, cause.g);
          cause.p.forEach(function (pi) { addOnce(pathCats[pi], cause.g); });
        }
        if (cause.k === "b") addOnce(breakCats, cause.g);
        addOnce(texts, cause.t);
        addOnce(categoryNames, cause.g);
      });
      c.failCats = failCats;
      c.breakCats = breakCats;
      c.pathCats = pathCats;
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

    // The categories a case counts under in a view: a path's view counts the
    // causes of failure on that path, "Any failure" every cause of failure,
    // "Graph breaks" the break reasons, the others every cause.
    var viewPath = {};
    paths.forEach(function (p, pi) { viewPath["fail-" + p.id] = pi; });
    function categoriesIn(c, view) {
      if (viewPath[view] !== undefined) return c.pathCats[viewPath[view]];
      if (view === "fail") return c.failCats;
      if (view === "breaks") return c.breakCats;
      return c.cats;
    }

    function unclipAncestors(node) {
      for (var up = node.parentElement; up && up !== document.body; up = up.parentElement) {
        var style = getComputedStyle(up);
        var scrolls = function (v) { return v !== "visible" && v !== "clip"; };
        if (scrolls(style.overflowX) || scrolls(style.overflowY)) {
          up.style.overflowX = "clip";
          up.style.overflowY = "visible";
          // A flex item that scrolled could shrink below its content; one that clips keeps that.
          up.style.minWidth = "0";
        }
      }
    }

    // Controls: a toolbar that stays in view (the page's own slot, else above the tables).
    var toolbar = document.getElementById("cm-controls");
    if (!toolbar) {
      toolbar = el("div", "cm-toolbar");
      toolbar.id = "cm-controls";
      toolbar.setAttribute("role", "search");
      mount.appendChild(toolbar);
    }
    var searchRow = el("div", "cm-search-row");
    var searchLabel = el("label", "cm-search-label", "Search");
    searchLabel.htmlFor = "cm-q";
    var search = el("input");
    search.type = "search";
    search.id = "cm-q";
    search.placeholder = "Name, e.g. " + (data.ex || data.root || "lib") + " — press /";
    search.autocomplete = "off";
    search.spellcheck = false;
    search.setAttribute("aria-keyshortcuts", "/");
    search.setAttribute("aria-controls", "cm-tables");
    searchRow.appendChild(searchLabel);
    searchRow.appendChild(search);
    var filtersToggle = el("button", "cm-filters-toggle", "Filters");
    filtersToggle.type = "button";
    filtersToggle.setAttribute("aria-expanded", "false");
    filtersToggle.setAttribute("aria-controls", "cm-filters");
    searchRow.appendChild(filtersToggle);
    toolbar.appendChild(searchRow);
    var filters = el("div", "cm-filters");
    filters.id = "cm-filters";
    var controls = el("div", "cm-controls");
    filters.appendChild(controls);

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

    filters.appendChild(viewBar);
    toolbar.appendChild(filters);
    var statusRow = el("div", "cm-status-row");
    statusRow.appendChild(status);
    statusRow.appendChild(chip);
    toolbar.appendChild(statusRow);
    // What the reader sees when nothing matches, with a way out.
    var empty = el("div", "cm-empty");
    empty.hidden = true;
    var emptyText = el("p", "");
    var emptyReset = el("button", "cm-reset", "Clear the search and filters");
    emptyReset.type = "button";
    empty.appendChild(emptyText);
    empty.appendChild(emptyReset);
    mount.appendChild(empty);

    function narrow() { return window.matchMedia && window.matchMedia(NARROW).matches; }
    function showFilters(open) {
      toolbar.classList.toggle("cm-filters-open", open);
      filtersToggle.setAttribute("aria-expanded", open ? "true" : "false");
    }
    filtersToggle.addEventListener("click", function () {
      showFilters(!toolbar.classList.contains("cm-filters-open"));
    });
    // Sticky table headers sit just below the toolbar, whatever its height.
    var toolbarHeight = "";
    function measureToolbar() {
      var height = Math.ceil(toolbar.getBoundingClientRect().height) + "px";
      if (height === toolbarHeight) return;
      toolbarHeight = height;
      document.documentElement.style.setProperty("--cm-top", height);
    }
    // Measured after the first layout (never forcing one before the rows exist).
    if (window.ResizeObserver) new ResizeObserver(measureToolbar).observe(toolbar);
    else setTimeout(measureToolbar, 0);
    // A docs theme's header that stays at the top (pydata's; furo's on a phone) would cover
    // the toolbar: toolbar and table headers stick below it.
    if (adopt) {
      var headerHeight = "";
      var measureHeader = function () {
        var bottom = 0;
        var headers = document.querySelectorAll("header");
        for (var h = 0; h < headers.length; h++) {
          if (toolbar.contains(headers[h])) continue;
          var style = getComputedStyle(headers[h]);
          if (style.position !== "sticky" && style.position !== "fixed") continue;
          var box = headers[h].getBoundingClientRect();
          if (box.height > 0 && box.top <= 1 && parseFloat(style.top || "0") === 0) {
            bottom = Math.max(bottom, Math.ceil(box.bottom));
          }
        }
        var height = bottom + "px";
        if (height === headerHeight) return;
        headerHeight = height;
        document.documentElement.style.setProperty("--cm-header", height);
      };
      setTimeout(measureHeader, 0);
      window.addEventListener("resize", measureHeader);
      // A theme's scrolling box around the article or a table (pydata's article, rtd's and
      // furo's table wrappers) would hold the sticky toolbar and headers inside it, where
      // they never stick; clipping instead of scrolling keeps the layout and lets them stick.
      var unclipAll = function () {
        unclipAncestors(toolbar);
        Array.prototype.forEach.call(document.querySelectorAll("table.capmap-cases"), unclipAncestors);
      };
      unclipAll();
      // sphinx-rtd-theme wraps tables in its scrolling box from its own script, once loaded.
      window.addEventListener("load", unclipAll);
    }

    // Rows: one per case, built once; filtering only toggles `hidden`.
    var rows = new Array(cases.length);
    var sectionNodes = new Array(sections.length);
    var sectionCounts = new Array(sections.length);

    // Cause text with its `code` spans as <code>.
    function appendText(node, text) {
      var parts = text.split("`");
      if (parts.length < 3 || parts.length % 2 === 0) {
        node.appendChild(document.createTextNode(text));
        return;
      }
      parts.forEach(function (part, i) {
        if (!part) return;
        node.appendChild(i % 2 ? el("code", "", part) : document.createTextNode(part));
      });
    }
    var KIND_CLASS = { b: "cause k-break", n: "cause k-notrun", o: "cause k-note" };
    var KIND_WORD = { b: " (graph break)", n: "", o: "" };
    function causeNode(cause) {
      var line = el("div", KIND_CLASS[cause.k] || "cause k-fail");
      line.title = cause.g;
      var who = cause.p.map(function (i) { return paths[i].short; }).join(", ");
      line.appendChild(el("b", "", who + (KIND_WORD[cause.k] || "")));
      line.appendChild(document.createTextNode(": "));
      appendText(line, cause.t);
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

    // A failure's details, built when first opened: the error, the measured
    // difference, what to try, and the command that writes a repro script.
    var panelCount = 0;
    // One listener for every "What now?" button (rows are many, failures fewer).
    function detailsToggle(c, cause, td) {
      var button = el("button", "cm-why", "What now?");
      button.type = "button";
      button.setAttribute("aria-expanded", "false");
      button.setAttribute("aria-label", "Details and remedy: " + c.n + ", " + cause.p.map(function (i) { return paths[i].label; }).join(", "));
      button.cmCase = c;
      button.cmCause = cause;
      td.appendChild(button);
    }
    document.addEventListener("click", function (event) {
      var button = event.target && event.target.closest ? event.target.closest("button.cm-why") : null;
      if (!button || !button.cmCause) return;
      var panel = button.cmPanel;
      if (!panel) {
        panel = button.cmPanel = failurePanel(button.cmCase, button.cmCause);
        panel.id = "cm-why-" + (++panelCount);
        button.setAttribute("aria-controls", panel.id);
        button.parentNode.insertBefore(panel, button.nextSibling);
      } else {
        panel.hidden = !panel.hidden;
      }
      button.setAttribute("aria-expanded", panel.hidden ? "false" : "true");
    });
    function failurePanel(c, cause) {
      var panel = el("div", "cm-why-panel");
      if (cause.x) {
        panel.appendChild(el("p", "cm-why-h", "Error"));
        var pre = el("pre", "cm-excerpt");
        // It scrolls when long: the keyboard must reach it too.
        pre.tabIndex = 0;
        pre.setAttribute("aria-label", "Error");
        pre.appendChild(el("code", "", cause.x));
        panel.appendChild(pre);
      }
      if (cause.m) panel.appendChild(el("p", "", "Measured: " + cause.m));
      var remedy = data.rm && data.rm[cause.t];
      if (remedy) {
        var what = el("p", "cm-remedy");
        what.appendChild(el("b", "", "What to try: "));
        appendText(what, remedy);
        panel.appendChild(what);
      }
      cause.p.forEach(function (pi) {
        var command = "capmap repro '" + c.n.replace(/'/g, "'\\''") + "' --path " + paths[pi].id;
        var line = el("p", "cm-command");
        line.appendChild(document.createTextNode("Reproduce (" + paths[pi].label + "): "));
        var code = el("code", "", command);
        line.appendChild(code);
        var copy = el("button", "cm-copy", "Copy");
        copy.type = "button";
        copy.setAttribute("aria-label", "Copy: " + command);
        copy.addEventListener("click", function () {
          function done(ok) { copy.textContent = ok ? "Copied" : "Select and copy"; }
          if (navigator.clipboard && navigator.clipboard.writeText) {
            navigator.clipboard.writeText(command).then(function () { done(true); }, function () { done(false); });
          } else {
            done(false);
          }
        });
        line.appendChild(copy);
        panel.appendChild(line);
        (c.r || []).forEach(function (r) {
          if (r[0] !== pi) return;
          panel.appendChild(el("p", "cm-verdict",
            (r[1] ? "Reproduced outside capmap: " : "Did not reproduce outside capmap: ") + r[2]));
        });
      });
      return panel;
    }

    // Fills a node with text, marking what the search terms match.
    function fillMarked(node, text, terms) {
      if (!terms.length) {
        node.textContent = text;
        return;
      }
      node.textContent = "";
      var lower = text.toLowerCase();
      var ranges = [];
      terms.forEach(function (t) {
        for (var at = lower.indexOf(t); at >= 0; at = lower.indexOf(t, at + t.length)) {
          ranges.push([at, at + t.length]);
        }
      });
      ranges.sort(function (a, b) { return a[0] - b[0]; });
      var merged = [];
      ranges.forEach(function (r) {
        var last = merged[merged.length - 1];
        if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]); else merged.push(r.slice());
      });
      function plain(from, to, into) {
        into.appendChild(document.createTextNode(text.slice(from, to)));
      }
      var pos = 0;
      merged.forEach(function (r) {
        if (r[0] > pos) plain(pos, r[0], node);
        var mark = el("mark");
        plain(r[0], r[1], mark);
        node.appendChild(mark);
        pos = r[1];
      });
      if (pos < text.length) plain(pos, text.length, node);
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
      pre.tabIndex = 0;
      pre.setAttribute("aria-label", "Repro script");
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
      if (c.pn) {
        var qn = el("span", "qn", c.pn);
        op.appendChild(qn);
        tr.cmQn = qn;
      }
      tr.cmCode = code;
      if (c.note) op.appendChild(el("span", "note", c.note));
      // What the capture wrapper opened, so a reader knows the graph's edges are tensors.
      if (c.fl) op.appendChild(el("span", "note flattened", "flattened: " + c.fl.join("; ")));
      tr.appendChild(op);
      tr.appendChild(el("td", "var", c.v || ""));
      c.st.forEach(function (s, pi) {
        var td = el("td", "path");
        td.setAttribute("data-label", paths[pi].label);
        td.appendChild(el("span", "badge " + statusClass(s), LABEL[s] || s));
        if (c.fg && c.fg[pi]) td.appendChild(el("span", "cm-figure", c.fg[pi]));
        reproControls(c, pi, td);
        tr.appendChild(td);
      });
      var gb = el("td", "num gb", c.gb === undefined ? "" : c.gb);
      gb.setAttribute("data-label", "graph breaks");
      tr.appendChild(gb);
      var causes = el("td", "causes");
      c.c.forEach(function (cause) {
        causes.appendChild(causeNode(cause));
        if (!cause.k) detailsToggle(c, cause, causes);
      });
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
        if (markTerms.length && visibleNow[ci]) {
          paintName(ci, markTerms);
          markedRows.push(ci);
        }
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
      // The search names the tables it filters: the ones Sphinx wrote, not the page's container.
      var controlled = Array.prototype.map.call(tables, function (t, ti) {
        if (!t.id) t.id = "cm-table-" + ti;
        return t.id;
      });
      if (controlled.length) search.setAttribute("aria-controls", controlled.join(" "));
      else search.removeAttribute("aria-controls");
      if (tables.length === sections.length) {
        sections.forEach(function (s, si) {
          var trs = tables[si].tBodies.length ? tables[si].tBodies[0].rows : [];
          s.cases.forEach(function (ci, j) { rows[ci] = trs[j]; });
          sectionNodes[si] = tables[si].closest("section") || tables[si];
          // Narrow screens stack each row as a card: its badges need their path's name.
          tables[si].classList.add("cm-cases");
          var labels = [];
          if (tables[si].tHead && tables[si].tHead.rows.length) {
            Array.prototype.forEach.call(tables[si].tHead.rows[0].cells, function (th) { labels.push(th.textContent.trim()); });
          }
          Array.prototype.forEach.call(trs, function (tr, j) {
            var cells = tr.cells;
            for (var k = 2; k < cells.length - 1; k++) {
              cells[k].setAttribute("data-label", labels[k] || "");
              cells[k].className += k < cells.length - 2 ? " path" : " gb";
            }
            if (cells.length) {
              cells[0].className += " op";
              var ci = s.cases[j];
              if (ci !== undefined && cases[ci].pn) {
                tr.cmQn = el("span", "qn", cases[ci].pn);
                cells[0].appendChild(tr.cmQn);
              }
              // The name Sphinx wrote (in a link, a literal or both) is marked like the page's:
              // in its innermost element, so links and literals stay; not when it shows other
              // text (a cross-reference's title), which marking would replace.
              if (ci !== undefined) {
                Array.prototype.forEach.call(cells[0].querySelectorAll("*"), function (n) {
                  if (n !== tr.cmQn && n.textContent.trim() === cases[ci].o) tr.cmCode = n;
                });
              }
              cells[1].className += " var";
              cells[cells.length - 1].className += " causes";
              // Each failure opens to its error, remedy and repro command, as on the HTML page.
              if (ci !== undefined) {
                cases[ci].c.forEach(function (cause) {
                  if (!cause.k) detailsToggle(cases[ci], cause, cells[cells.length - 1]);
                });
              }
            }
          });
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
        // No scrolling wrapper: it would keep the header row from sticking.
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
        sec.appendChild(table);
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
          var inCat = !state.cat || categoriesIn(c, state.view).indexOf(state.cat) >= 0;
          var inView = (c.mask & bit) !== 0;
          if (inPkg) {
            for (var v = 0; v < views.length; v++) {
              if (!(c.mask & (1 << v))) continue;
              if (state.cat && categoriesIn(c, views[v].id).indexOf(state.cat) < 0) continue;
              viewCounts[v]++;
            }
          }
          if (inPkg && inView) {
            var counted = categoriesIn(c, state.view);
            for (var g = 0; g < counted.length; g++) catCounts[counted[g]] = (catCounts[counted[g]] || 0) + 1;
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
          var none = perSection[s] === 0;
          if (sectionHidden[s] !== none) {
            sectionNodes[s].hidden = none;
            sectionHidden[s] = none;
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
      // Folded filters still say how many are set.
      var active = (state.view !== "all" ? 1 : 0) + (state.cat ? 1 : 0) + (state.pkg ? 1 : 0);
      setText(filtersToggle, active ? "Filters (" + active + ")" : "Filters");
      setText(status, "Showing " + shown + " of " + cases.length + " cases" + selectionNote);
      status.setAttribute("data-shown", String(shown));
      empty.hidden = shown > 0;
      if (shown === 0) setText(emptyText, nothingText(terms));
      // Marks wait for a pause in typing, so a keystroke only filters.
      clearTimeout(markTimer);
      markTimer = setTimeout(function () { highlight(terms, shown); }, terms.length ? 120 : 0);
      writeFragment();
    }

    // Says what was asked and how to widen it.
    function nothingText(terms) {
      var asked = [];
      if (state.q) asked.push("\u201c" + state.q + "\u201d");
      if (state.view !== "all") views.forEach(function (v) { if (v.id === state.view) asked.push("view " + v.label); });
      if (state.cat) asked.push("category " + state.cat);
      if (state.pkg) asked.push("package " + state.pkg);
      if (state.cause) asked.push("cause " + state.cause);
      var text = "No case matches " + asked.join(", ") + ".";
      if (terms.length) {
        var last = terms[terms.length - 1].split(".").pop();
        text += " Names are searched as written in the library (" + (data.ex || data.root || "lib") +
          "); try fewer words or only the last part of the name" +
          (last ? " (\u201c" + last + "\u201d)" : "") + ".";
      }
      if (state.view !== "all" || state.cat || state.pkg || state.cause) text += " Filters narrow the search too.";
      return text;
    }

    // Marks the search words in the names of the rows shown, when few enough are shown.
    var MARK_LIMIT = 400;
    var markTimer = 0;
    var markTerms = [];
    var markedRows = [];
    function highlight(terms, shown) {
      var wanted = terms.length && shown <= MARK_LIMIT ? terms : [];
      var key = wanted.join(" ");
      if (!key) {
        markedRows.forEach(function (ci) { paintName(ci, []); });
        markedRows = [];
        markTerms = [];
        return;
      }
      markTerms = wanted;
      // Rows shown get the new marks; hidden ones keep theirs until they show again.
      for (var i = 0; i < cases.length; i++) {
        if (!visibleNow[i] || !rows[i] || rows[i].cmMarked === key) continue;
        if (!rows[i].cmMarked) markedRows.push(i);
        paintName(i, wanted);
      }
    }
    function paintName(ci, terms) {
      var tr = rows[ci];
      if (!tr) return;
      tr.cmMarked = terms.join(" ");
      if (tr.cmCode) fillMarked(tr.cmCode, cases[ci].o, terms);
      if (tr.cmQn) fillMarked(tr.cmQn, cases[ci].pn, terms);
    }

    function update(change) {
      for (var key in change) state[key] = change[key];
      syncControls();
      apply();
    }

    // A reader who searches from the top of the page is taken to the rows once.
    var casesSection = document.getElementById("cm-cases") || mount;
    function reveal() {
      if (casesSection.getBoundingClientRect().top > window.innerHeight * 0.8) {
        casesSection.scrollIntoView({ block: "start" });
      }
    }
    search.addEventListener("input", function () { update({ q: search.value }); reveal(); });
    catSelect.select.addEventListener("change", function () { update({ cat: catSelect.select.value }); reveal(); });
    pkgSelect.select.addEventListener("change", function () { update({ pkg: pkgSelect.select.value }); reveal(); });
    viewButtons.forEach(function (button) {
      button.addEventListener("click", function () { update({ view: button.getAttribute("data-view") }); reveal(); });
    });
    emptyReset.addEventListener("click", function () {
      update({ q: "", view: "all", cat: "", pkg: "", cause: "" });
      search.focus();
    });
    chipClear.addEventListener("click", function () { update({ cause: "" }); search.focus(); });
    reset.addEventListener("click", function () {
      update({ q: "", view: "all", cat: "", pkg: "", cause: "" });
      search.focus();
    });
    function jumpToCases() {
      casesSection.scrollIntoView({ block: "start" });
      search.focus({ preventScroll: true });
    }
    // A cause or category listed under a path shows that path's failures.
    function pathView(button) {
      var path = button.getAttribute("data-path");
      return path && validView("fail-" + path) ? "fail-" + path : "all";
    }
    document.querySelectorAll("button[data-cause]").forEach(function (button) {
      button.addEventListener("click", function () {
        update({ cause: button.getAttribute("data-cause"), view: pathView(button), q: "", cat: "" });
        jumpToCases();
      });
    });
    document.querySelectorAll("button[data-cat]").forEach(function (button) {
      button.addEventListener("click", function () {
        update({ cat: button.getAttribute("data-cat"), view: pathView(button), q: "", cause: "" });
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

    showFilters(!narrow());
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
