// accel_sim's cycle-by-cycle trace viewer. Reads the trace embedded in the page (element #trace-data,
// written by accel_sim/pipeline/trace/html.py) and draws the datapath at one cycle at a time.
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("trace-data").textContent);
  var SVGNS = "http://www.w3.org/2000/svg";
  var KIND_ORDER = ["dram", "buffer", "network", "crossbar", "fifo", "pe", "control", "other"];
  var KIND_LABEL = { dram: "DRAM", buffer: "buffers", network: "network", crossbar: "crossbar",
    fifo: "FIFOs", pe: "PEs", control: "control", other: "other" };
  var KIND_COLOR = { pe: "#4e79a7", fifo: "#76b7b2", buffer: "#b6992d", crossbar: "#9c755f", network: "#6b5b95",
    dram: "#555555", control: "#8c8c8c", other: "#8c8c8c" };
  var STATE_COLOR = { zero: "#f28e2b", skip: "#2ca02c", stall: "#e15759" };
  var IDLE = "#f1f1f1";

  // ---- the trace, indexed ------------------------------------------------------------------------
  function guessKind(name) {
    var n = name.toLowerCase();
    if (/dram|hbm|ddr|off-chip|main memory/.test(n)) return "dram";
    if (/fifo|queue/.test(n)) return "fifo";
    if (/crossbar|xbar/.test(n)) return "crossbar";
    if (/buffer|sram|bank|cache|spad|scratch|register|accumulator|\bglb\b|\brf\b/.test(n)) return "buffer";
    if (/noc|network|bus|broadcast|link|scatter|gather|multicast/.test(n)) return "network";
    if (/\bpe\b|\bmac|alu|multiplier|lane|core|\bunit\b|array/.test(n)) return "pe";
    if (/control|sched|barrier|lnzd|dispatch|sequenc|encoder|decoder/.test(n)) return "control";
    return "other";
  }
  function stateOf(s) {
    var a = s.args || {};
    var st = String(a.state === undefined ? "" : a.state).toLowerCase();
    if (st === "work" || st === "zero" || st === "skip" || st === "stall") return st;
    var what = String(a.what === undefined ? "" : a.what).toLowerCase();   // a recorded event's kind
    if (what === "compute" && a.macs === undefined && a.state === undefined) return "zero";   // an empty step
    var text = st + " " + what + " " + String(a.kind === undefined ? "" : a.kind).toLowerCase() + " " +
      String(a.cause === undefined ? "" : a.cause).toLowerCase() + " " + s.name.toLowerCase();
    if (/stall|wait|conflict|barrier|blocked|full/.test(text)) return "stall";
    if (/skip/.test(text)) return "skip";
    if (/zero|pad|gate|empty/.test(text)) return "zero";
    return "work";
  }
  function skippedOf(s) {
    var v = Number((s.args || {}).skipped);
    return isFinite(v) && v > 0 ? v : 0;
  }
  var CYCLES = Math.max(1, D.cycles | 0);
  var tracks = D.tracks.map(function (t, i) {
    return { i: i, name: t.name, kind: t.kind || guessKind(t.name), slices: [], maxDur: 1,
      counter: D.counters[t.name] || null, counterMax: 0 };
  });
  var byName = {};
  tracks.forEach(function (t) { byName[t.name] = t; });
  D.slices.forEach(function (r) {
    var s = { track: r[0], name: String(r[1]), start: r[2], dur: r[3], args: r[4] || {} };
    s.state = stateOf(s);
    s.skipped = skippedOf(s);
    var t = tracks[s.track];
    t.slices.push(s);
    if (s.dur > t.maxDur) t.maxDur = s.dur;
  });
  tracks.forEach(function (t) {
    t.slices.sort(function (a, b) { return a.start - b.start; });
    if (t.counter) t.counterMax = Math.max.apply(null, t.counter.map(function (c) { return c[1]; }).concat([0]));
  });
  var kindMax = {};   // one scale per kind: four FIFOs' bars compare (a FIFO that peaked at 1 is not "full")
  tracks.forEach(function (t) { kindMax[t.kind] = Math.max(kindMax[t.kind] || 0, t.counterMax); });
  tracks.forEach(function (t) { t.counterMax = kindMax[t.kind]; });
  var flows = D.flows.map(function (r) { return { name: String(r[0]), src: r[1], dst: r[2], start: r[3], end: r[4] }; });
  flows.sort(function (a, b) { return a.start - b.start; });
  var maxFlowLen = flows.reduce(function (m, f) { return Math.max(m, f.end - f.start); }, 0);
  var gaugeNames = Object.keys(D.counters).filter(function (n) { return !byName[n]; });
  var columns = D.table.columns;
  var cycleColumn = columns.indexOf("cycle");   // a run that starts before 0 numbers its rows its own way
  var counterColumns = D.counter_columns.filter(function (c) { return columns.indexOf(c) >= 0; });

  function lastAtOrBefore(arr, c, key) {   // index of the last element whose key <= c, or -1
    var lo = 0, hi = arr.length - 1, ans = -1;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1;
      if (key(arr[mid]) <= c) { ans = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return ans;
  }
  function activeSlices(t, c) {
    var out = [];
    for (var j = lastAtOrBefore(t.slices, c, function (s) { return s.start; }); j >= 0; j--) {
      var s = t.slices[j];
      if (s.start <= c - t.maxDur) break;
      if (s.start + s.dur > c) out.unshift(s);
    }
    return out;
  }
  function counterAt(samples, c) {
    if (!samples) return null;
    var j = lastAtOrBefore(samples, c, function (x) { return x[0]; });
    return j < 0 ? null : samples[j][1];
  }
  function activeFlows(c) {
    var out = [];
    for (var j = lastAtOrBefore(flows, c, function (f) { return f.start; }); j >= 0; j--) {
      var f = flows[j];
      if (f.start < c - maxFlowLen) break;
      if (f.end >= c) out.unshift(f);
    }
    return out;
  }
  function fmt(v) {
    if (typeof v === "number") return Number.isInteger(v) ? String(v) : v.toPrecision(4);
    if (typeof v === "string") return v;
    return JSON.stringify(v);
  }

  // ---- the datapath ------------------------------------------------------------------------------
  var svg = document.getElementById("datapath");
  function el(name, attrs, parent) {
    var e = document.createElementNS(SVGNS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  var W = 1000, LABEL_W = 86, GAP = 8, BAND_GAP = 40, TOP = 14;
  var layout = [];   // per track: {x, y, w, h}
  var bands = KIND_ORDER.map(function (k) { return { kind: k, tracks: tracks.filter(function (t) { return t.kind === k; }) }; })
    .filter(function (b) { return b.tracks.length; });
  var y = TOP;
  bands.forEach(function (b) {
    var n = b.tracks.length;
    var cols = n <= 8 ? n : n <= 64 ? Math.min(16, Math.ceil(Math.sqrt(n))) : Math.min(24, Math.ceil(Math.sqrt(n * 1.5)));
    var rows = Math.ceil(n / cols);
    var avail = W - LABEL_W - 12;
    var w = Math.min(180, (avail - (cols - 1) * GAP) / cols);
    var h = n > 64 ? 36 : n > 8 ? 50 : 62;   // many boxes: compact ones
    var x0 = LABEL_W + (avail - (cols * w + (cols - 1) * GAP)) / 2;
    b.y = y; b.h = rows * h + (rows - 1) * GAP;
    b.tracks.forEach(function (t, k) {
      layout[t.i] = { x: x0 + (k % cols) * (w + GAP), y: y + Math.floor(k / cols) * (h + GAP), w: w, h: h };
    });
    y += b.h + BAND_GAP;
  });
  var H = Math.max(80, y - BAND_GAP + TOP + 6);
  svg.setAttribute("viewBox", "0 0 " + W + " " + H);
  var defs = el("defs", {}, svg);
  var hatch = el("pattern", { id: "hatch", width: 6, height: 6, patternUnits: "userSpaceOnUse",
    patternTransform: "rotate(45)" }, defs);
  el("rect", { width: 6, height: 6, fill: STATE_COLOR.zero }, hatch);
  el("line", { x1: 0, y1: 0, x2: 0, y2: 6, stroke: "#fff", "stroke-width": 2.5 }, hatch);
  var marker = el("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 6, markerHeight: 6,
    orient: "auto-start-reverse" }, defs);
  el("path", { d: "M0,0 L10,5 L0,10 z", fill: "#d62728" }, marker);
  var wireLayer = el("g", {}, svg), flowLayer = el("g", {}, svg), boxLayer = el("g", {}, svg), labelLayer = el("g", {}, svg);
  bands.forEach(function (b) {
    var t = el("text", { x: 6, y: b.y + Math.min(b.h, 62) / 2 + 4, "class": "band-label" }, boxLayer);
    t.textContent = KIND_LABEL[b.kind];
  });
  function wirePath(a, b) {
    var A = layout[a], B = layout[b];
    if (!A || !B) return null;
    var ax = A.x + A.w / 2, bx = B.x + B.w / 2;
    if (Math.abs(A.y - B.y) < 1) {   // same row: an arc above
      var top = A.y - 14;
      return "M" + ax + "," + A.y + " C" + ax + "," + top + " " + bx + "," + top + " " + bx + "," + B.y;
    }
    var down = B.y > A.y;
    var ay = down ? A.y + A.h : A.y, by = down ? B.y : B.y + B.h, my = (ay + by) / 2;
    return "M" + ax + "," + ay + " C" + ax + "," + my + " " + bx + "," + my + " " + bx + "," + by;
  }
  var pairs = {};
  flows.forEach(function (f) { pairs[f.src + ">" + f.dst] = [f.src, f.dst]; });
  Object.keys(pairs).slice(0, 4000).forEach(function (k) {
    var d = wirePath(pairs[k][0], pairs[k][1]);
    if (d) el("path", { d: d, "class": "wire" }, wireLayer);
  });
  var views = tracks.map(function (t) {
    var L = layout[t.i];
    var g = el("g", { "class": "el idle", "data-track": t.name, transform: "translate(" + L.x + "," + L.y + ")" }, boxLayer);
    var box = el("rect", { "class": "box", width: L.w, height: L.h, rx: 5 }, g);
    var name = el("text", { "class": "tname", x: 5, y: 12 }, g);
    name.textContent = clip(t.name, L.w, 5.6);
    var val = el("text", { "class": "tval", x: 5, y: L.h > 55 ? 32 : L.h > 40 ? 29 : 25 }, g);
    var bar = null;
    if (t.counter) {
      var barY = L.h - (L.h > 40 ? 10 : 6);
      el("rect", { "class": "bar-bg", x: 5, y: barY, width: L.w - 10, height: 4, rx: 2 }, g);
      bar = el("rect", { "class": "bar", x: 5, y: barY, width: 0, height: 4, rx: 2 }, g);
    }
    var badge = el("g", { "class": "badge", visibility: "hidden" }, g);
    var badgeRect = el("rect", { x: L.w - 62, y: -7, width: 60, height: 13, rx: 6 }, badge);
    var badgeText = el("text", { x: L.w - 32, y: 3, "text-anchor": "middle" }, badge);
    g.addEventListener("mouseenter", function (ev) { hover(t.i, ev); });
    g.addEventListener("mousemove", moveTip);
    g.addEventListener("mouseleave", function () { hover(null); });
    g.addEventListener("click", function () { pinned = pinned === t.i ? null : t.i; renderDetails(); });
    return { g: g, box: box, val: val, name: name, bar: bar, badge: badge, badgeRect: badgeRect, badgeText: badgeText, w: L.w };
  });
  function clip(text, width, charW) {
    var n = Math.max(3, Math.floor((width - 10) / charW));
    return text.length > n ? text.slice(0, n - 1) + "\u2026" : text;
  }

  // ---- the side panel ----------------------------------------------------------------------------
  document.getElementById("title").textContent = D.title;
  document.title = D.title;
  var notes = document.getElementById("notes");
  D.notes.forEach(function (n) { var li = document.createElement("li"); li.textContent = n; notes.appendChild(li); });
  if (!D.notes.length) document.getElementById("notes-box").hidden = true;
  function tableRows(id, names, attr) {
    var table = document.getElementById(id), cells = {};
    names.forEach(function (n) {
      var tr = document.createElement("tr");
      tr.setAttribute(attr, n);
      var th = document.createElement("th"); th.textContent = n; tr.appendChild(th);
      var td = document.createElement("td"); td.className = "value"; tr.appendChild(td);
      var delta = document.createElement("td"); delta.className = "delta"; tr.appendChild(delta);
      table.appendChild(tr);
      cells[n] = { tr: tr, td: td, delta: delta };
    });
    return cells;
  }
  var counterCells = tableRows("counters", counterColumns, "data-column");
  if (!counterColumns.length) document.getElementById("counters").outerHTML = '<p class="hint">This trace names no counters.</p>';
  var otherColumns = columns.filter(function (c) { return c !== "cycle" && counterColumns.indexOf(c) < 0; });
  var cycleCells = tableRows("this-cycle", otherColumns, "data-column");
  var MANY_COLUMNS = 24, IDLE_CELL = ".";   // the table's idle cell
  var gaugeCells = tableRows("gauges", gaugeNames, "data-counter");
  if (!gaugeNames.length) document.getElementById("gauges-box").hidden = true;
  (function legend() {
    var box = document.getElementById("legend");
    function row(draw, text) {
      var r = document.createElement("div"); r.className = "row";
      var s = el("svg", { width: 34, height: 16 }); draw(s); r.appendChild(s);
      var span = document.createElement("span"); span.textContent = text; r.appendChild(span);
      box.appendChild(r);
    }
    var kinds = bands.map(function (b) { return b.kind; });
    kinds.forEach(function (k) {
      row(function (s) { el("rect", { x: 1, y: 2, width: 32, height: 12, rx: 3, fill: KIND_COLOR[k] }, s); },
        KIND_LABEL[k] + ": busy with useful work");
    });
    row(function (s) {
      var p = el("pattern", { id: "hatch-legend", width: 6, height: 6, patternUnits: "userSpaceOnUse",
        patternTransform: "rotate(45)" }, s);
      el("rect", { width: 6, height: 6, fill: STATE_COLOR.zero }, p);
      el("line", { x1: 0, y1: 0, x2: 0, y2: 6, stroke: "#fff", "stroke-width": 2.5 }, p);
      el("rect", { x: 1, y: 2, width: 32, height: 12, rx: 3, fill: "url(#hatch-legend)" }, s);
    }, "a cycle spent on a zero (gated, padding or an empty slice)");
    row(function (s) { el("rect", { x: 1, y: 2, width: 32, height: 12, rx: 3, fill: STATE_COLOR.skip }, s); },
      "zeros skipped: passed over at no cycle cost, nothing else to do");
    row(function (s) { el("rect", { x: 1, y: 2, width: 32, height: 12, rx: 3, fill: STATE_COLOR.stall }, s); },
      "stalled: waiting (full FIFO, conflict, barrier)");
    row(function (s) { el("rect", { x: 1, y: 2, width: 32, height: 12, rx: 3, fill: IDLE, stroke: "#999" }, s); }, "idle");
    row(function (s) {
      el("rect", { x: 1, y: 2, width: 32, height: 12, rx: 6, fill: "#2ca02c" }, s);
      var t = el("text", { x: 17, y: 11.5, "text-anchor": "middle", fill: "#fff", "font-size": 9, "font-weight": 700 }, s);
      t.textContent = "skip";
    }, "badge: this step also passed over that many zeros at no cycle cost");
    row(function (s) { el("path", { d: "M2,8 L30,8", stroke: "#d62728", "stroke-width": 2.2, "marker-end": "url(#arrow)" }, s); },
      "a value moving in this cycle (grey: the wires)");
    row(function (s) {
      el("rect", { x: 1, y: 5, width: 32, height: 6, rx: 2, fill: "#e4e4e4" }, s);
      el("rect", { x: 1, y: 5, width: 20, height: 6, rx: 2, fill: "#333", opacity: 0.55 }, s);
    }, "fill bar: the box's counter (e.g. FIFO entries) against the largest of its kind");
  })();

  // ---- the timeline strip ------------------------------------------------------------------------
  var canvas = document.getElementById("timeline");
  var strip = document.createElement("canvas");
  var rowH = Math.max(2, Math.min(12, Math.floor(240 / Math.max(1, tracks.length))));
  var GUTTER = rowH >= 8 ? 110 : 0;   // track names, when the rows are tall enough to read
  function colorOf(t, s) { return s.state === "work" ? KIND_COLOR[t.kind] : STATE_COLOR[s.state]; }
  function stripScale() { return (canvas.width - GUTTER) / CYCLES; }
  function drawStrip() {
    var w = Math.max(300, Math.floor(canvas.clientWidth || 800));
    var h = Math.max(20, tracks.length * rowH + 4);
    canvas.width = w; canvas.height = h; strip.width = w; strip.height = h;
    var ctx = strip.getContext("2d"), sx = stripScale();
    ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, w, h);
    ctx.font = Math.min(11, rowH) + "px sans-serif"; ctx.textBaseline = "middle";
    tracks.forEach(function (t, r) {
      var y0 = 2 + r * rowH;
      ctx.fillStyle = r % 2 ? "#f3f3f3" : "#fff";
      ctx.fillRect(0, y0, w, rowH);
      if (GUTTER) { ctx.fillStyle = "#444"; ctx.fillText(t.name.slice(0, 18), 3, y0 + rowH / 2); }
      t.slices.forEach(function (s) {
        ctx.fillStyle = colorOf(t, s);
        ctx.fillRect(GUTTER + Math.floor(s.start * sx), y0, Math.max(1, Math.ceil(s.dur * sx) - (sx > 4 ? 1 : 0)),
          Math.max(1, rowH - 1));
      });
    });
  }
  function drawCursor() {
    var ctx = canvas.getContext("2d"), sx = stripScale();
    ctx.drawImage(strip, 0, 0);
    ctx.fillStyle = "rgba(214,39,40,0.22)";
    ctx.fillRect(GUTTER + Math.floor(cycle * sx), 0, Math.max(2, Math.ceil(sx)), canvas.height);
    ctx.fillStyle = "#d62728";
    ctx.fillRect(GUTTER + Math.floor(cycle * sx), 0, 1, canvas.height);
  }
  function stripCycle(ev) {
    var rect = canvas.getBoundingClientRect();
    var x = (ev.clientX - rect.left) / rect.width * canvas.width - GUTTER;
    return Math.max(0, Math.min(CYCLES - 1, Math.floor(x / stripScale())));
  }
  canvas.addEventListener("click", function (ev) { pause(); goto(stripCycle(ev)); });
  canvas.addEventListener("mousemove", function (ev) {
    var rect = canvas.getBoundingClientRect();
    var r = Math.floor(((ev.clientY - rect.top) / rect.height * canvas.height - 2) / rowH);
    canvas.title = "cycle " + stripCycle(ev) + (tracks[r] ? ", " + tracks[r].name : "");
  });
  window.addEventListener("resize", function () { drawStrip(); drawCursor(); });

  // ---- one cycle ---------------------------------------------------------------------------------
  var cycle = 0, hovered = null, pinned = null, timer = null;
  function render() {
    document.getElementById("cycle-number").textContent = String(cycle);
    document.getElementById("cycle-last").textContent = String(CYCLES - 1);
    var t = D.clock_hz > 0 ? cycle / D.clock_hz * 1e9 : null;
    var own = cycleColumn >= 0 && D.table.rows[cycle] ? D.table.rows[cycle][cycleColumn] : String(cycle);
    document.getElementById("cycle-time").textContent = (t === null ? "" :
      "= " + t.toPrecision(4) + " ns at " + (D.clock_hz / 1e6).toPrecision(4) + " MHz") +
      (own !== String(cycle) ? "; the run's cycle " + own + " (see About this run)" : "");
    document.getElementById("slider").value = String(cycle);
    var jump = document.getElementById("jump-input");
    if (document.activeElement !== jump) jump.value = String(cycle);
    tracks.forEach(function (tr, i) {
      var v = views[i], act = activeSlices(tr, cycle), s = act.length ? act[act.length - 1] : null;
      var cls = "el " + (s ? "active st-" + s.state : "idle");
      if (hovered === i) cls += " hover";
      if (pinned === i) cls += " pinned";
      v.g.setAttribute("class", cls);
      v.box.setAttribute("fill", !s ? IDLE : s.state === "zero" ? "url(#hatch)" :
        s.state === "work" ? KIND_COLOR[tr.kind] : STATE_COLOR[s.state]);
      v.val.style.fill = s && s.state !== "zero" ? "#fff" : s ? "#111" : "#999";
      v.name.style.fill = s && s.state !== "zero" ? "#fff" : "#444";
      v.val.textContent = s ? clip(s.name + (act.length > 1 ? " +" + (act.length - 1) : ""), v.w, 6.6) : "idle";
      var skipped = act.reduce(function (m, x) { return m + (x.start === cycle ? x.skipped : 0); }, 0);
      v.badge.setAttribute("visibility", skipped ? "visible" : "hidden");
      if (skipped) v.badgeText.textContent = "skip " + skipped + " zero" + (skipped > 1 ? "s" : "");
      if (v.bar) {
        var value = counterAt(tr.counter, cycle) || 0;
        v.bar.setAttribute("width", tr.counterMax > 0 ? (v.w - 10) * Math.min(1, value / tr.counterMax) : 0);
      }
    });
    while (flowLayer.firstChild) flowLayer.removeChild(flowLayer.firstChild);
    while (labelLayer.firstChild) labelLayer.removeChild(labelLayer.firstChild);
    var labelled = {};
    activeFlows(cycle).slice(0, 2000).forEach(function (f) {
      var d = wirePath(f.src, f.dst);
      if (!d) return;
      el("path", { d: d, "class": "flow", "marker-end": "url(#arrow)" }, flowLayer);
      var key = f.src + "|" + f.name;
      if (labelled[key]) return;
      labelled[key] = true;
      var A = layout[f.src], B = layout[f.dst], down = B.y > A.y + 1;
      var lbl = el("text", { "class": "flow-label", x: A.x + A.w / 2 + 4, y: down ? A.y + A.h + 12 : A.y - 4 }, labelLayer);
      lbl.textContent = f.name;
    });
    var row = D.table.rows[cycle] || null, before = cycle > 0 ? D.table.rows[cycle - 1] || null : null;
    function fill(cells, names) {
      names.forEach(function (n) {
        var v = row ? row[columns.indexOf(n)] : "";
        var was = before ? before[columns.indexOf(n)] : v;   // red: changed in this cycle
        cells[n].td.textContent = v;
        cells[n].tr.className = v !== was ? "changed" : "";
        var step = Number(v) - Number(was);   // a counter's growth in this cycle
        cells[n].delta.textContent = cells === counterCells && v !== was && isFinite(step) && v !== "" && was !== "" ?
          (step > 0 ? "+" : "") + fmt(Math.round(step * 10) / 10) : "";
      });
    }
    fill(counterCells, counterColumns);
    fill(cycleCells, otherColumns);
    if (otherColumns.length > MANY_COLUMNS) {   // a long list: only the parts doing something
      var idle = 0;
      otherColumns.forEach(function (n) {
        var quiet = cycleCells[n].td.textContent === IDLE_CELL;
        cycleCells[n].tr.hidden = quiet;
        idle += quiet ? 1 : 0;
      });
      document.getElementById("idle-count").textContent = idle ? "(" + idle + " idle parts not listed)" : "";
    }
    gaugeNames.forEach(function (n) {
      var v = counterAt(D.counters[n], cycle);
      gaugeCells[n].td.textContent = v === null ? "-" : fmt(v);
    });
    renderDetails();
    drawCursor();
  }
  function describe(i) {
    var t = tracks[i], parts = [];
    parts.push("<b>" + esc(t.name) + "</b> <span class='hint'>(" + esc(KIND_LABEL[t.kind]) + ", cycle " + cycle + ")</span>");
    var act = activeSlices(t, cycle);
    if (!act.length) parts.push("<div class='hint'>idle in this cycle</div>");
    act.forEach(function (s) {
      var a = Object.keys(s.args).map(function (k) { return esc(k) + ": <code>" + esc(fmt(s.args[k])) + "</code>"; });
      parts.push("<div class='slice st-" + s.state + "'><b>" + esc(s.name) + "</b> (" +
        { work: "work", zero: "a cycle on a zero", skip: "zeros skipped", stall: "stalled" }[s.state] + "; cycles " + s.start + "\u2013" +
        (s.start + s.dur - 1) + ")" + (s.skipped ? "; skipped " + s.skipped + " zero(s)" : "") +
        (a.length ? "<br>" + a.join(", ") : "") + "</div>");
    });
    if (t.counter) parts.push("<div>" + esc(t.name) + " = <b>" + fmt(counterAt(t.counter, cycle) || 0) + "</b> (max " + fmt(t.counterMax) + ")</div>");
    var moving = activeFlows(cycle).filter(function (f) { return f.src === i || f.dst === i; });
    moving.slice(0, 12).forEach(function (f) {
      parts.push("<div>" + (f.src === i ? "sends <b>" + esc(f.name) + "</b> to " + esc(tracks[f.dst].name) :
        "receives <b>" + esc(f.name) + "</b> from " + esc(tracks[f.src].name)) + "</div>");
    });
    return parts.join("");
  }
  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }
  var tip = document.getElementById("tooltip");
  function hover(i, ev) {
    hovered = i;
    if (i === null) { tip.hidden = true; } else { tip.innerHTML = describe(i); tip.hidden = false; moveTip(ev); }
    render();
  }
  function moveTip(ev) {
    if (!ev || tip.hidden) return;
    var x = ev.clientX + 14, y = ev.clientY + 14;
    if (x + 370 > window.innerWidth) x = ev.clientX - 370;
    tip.style.left = x + "px"; tip.style.top = y + "px";
  }
  function renderDetails() {
    var i = pinned !== null ? pinned : hovered;
    var box = document.getElementById("details");
    box.innerHTML = i === null ? "<p class='hint'>Nothing selected.</p>" : describe(i);
    if (hovered !== null && !tip.hidden) tip.innerHTML = describe(hovered);
  }

  // ---- controls ----------------------------------------------------------------------------------
  function goto(c) {
    c = Math.max(0, Math.min(CYCLES - 1, Math.floor(Number(c)) || 0));
    cycle = c;
    render();
    try { history.replaceState(null, "", "#cycle=" + c); } catch (e) { /* a file: page may refuse */ }
  }
  function play() {
    if (timer) return;
    if (cycle >= CYCLES - 1) goto(0);
    var rate = Number(document.getElementById("speed").value) || 2;
    timer = setInterval(function () { if (cycle >= CYCLES - 1) pause(); else goto(cycle + 1); }, 1000 / rate);
    document.getElementById("btn-play").innerHTML = "&#x275A;&#x275A; pause";
  }
  function pause() {
    if (timer) clearInterval(timer);
    timer = null;
    document.getElementById("btn-play").innerHTML = "&#x25B6; play";
  }
  function on(id, ev, f) { document.getElementById(id).addEventListener(ev, f); }
  on("btn-first", "click", function () { pause(); goto(0); });
  on("btn-back", "click", function () { pause(); goto(cycle - 1); });
  on("btn-step", "click", function () { pause(); goto(cycle + 1); });
  on("btn-last", "click", function () { pause(); goto(CYCLES - 1); });
  on("btn-play", "click", function () { if (timer) pause(); else play(); });
  on("speed", "change", function () { if (timer) { pause(); play(); } });
  on("slider", "input", function (ev) { pause(); goto(ev.target.value); });
  on("jump-go", "click", function () { pause(); goto(document.getElementById("jump-input").value); });
  on("jump-input", "keydown", function (ev) {
    if (ev.key === "Enter") { pause(); goto(ev.target.value); ev.target.blur(); }
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.target && /INPUT|SELECT|TEXTAREA/.test(ev.target.tagName)) return;
    if (ev.key === " ") { ev.preventDefault(); if (timer) pause(); else play(); }
    else if (ev.key === "ArrowRight") { pause(); goto(cycle + 1); }
    else if (ev.key === "ArrowLeft") { pause(); goto(cycle - 1); }
    else if (ev.key === "Home") { pause(); goto(0); }
    else if (ev.key === "End") { pause(); goto(CYCLES - 1); }
  });
  document.getElementById("slider").max = String(CYCLES - 1);
  document.getElementById("jump-input").max = String(CYCLES - 1);

  function hashCycle() { var m = /cycle=(\d+)/.exec(location.hash); return m ? Number(m[1]) : null; }
  window.addEventListener("hashchange", function () { var c = hashCycle(); if (c !== null && c !== cycle) { pause(); goto(c); } });
  drawStrip();
  goto(hashCycle() || 0);
  window.accelSimViewer = { goto: goto, cycles: CYCLES, get cycle() { return cycle; } };
})();
