"""The share file: one HTML page that opens from ``file://`` and makes no network request.

Why this shape: a result that travels must need neither a server nor trust. The data is gzip-
compressed JSON in base64 inside a non-executable ``<script type="application/gzip">`` block
(base64 has no ``<``, so nothing in it can close the block); the page's one script unpacks it
with the browser's ``DecompressionStream`` and builds every element with ``textContent`` and
``createElementNS`` (the neighbourhood is inline SVG), never ``innerHTML``. The Content
Security Policy allows only that script and that style sheet by their hashes and forbids every
fetch, image, frame, form and base URL, so even a reply that were rendered as markup could not
run or call home. ``#case=<id>`` opens a case.

Table 1 is ``explaincheck report``'s, over every execution, computed when the file is written
(``bundle.table1``); the filters choose the executions listed under it, never its figures.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
from pathlib import Path
from typing import Any

from explaincheck.core.atomic_files import write_bytes_atomically
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.share.bundle import build_bundle

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d232b;background:#f7f8fa}
header{background:#23364f;color:#fff;padding:10px 16px}
header h1{font-size:18px;margin:0}
main{padding:12px 16px}
table{border-collapse:collapse;margin:8px 0;background:#fff}
td,th{border:1px solid #d5dae1;padding:3px 8px;text-align:right}
th{background:#eef1f5}
td.l,th.l{text-align:left}
td.nw{white-space:nowrap}
.filters label{margin-right:12px}
.pass{color:#1b7a36}.fail{color:#b3261e}.invalid{color:#8a5a00}.error{color:#666}
pre{white-space:pre-wrap;word-break:break-word;background:#fff;border:1px solid #d5dae1;
padding:6px;max-height:320px;overflow:auto}
#case{border:2px solid #23364f;background:#fff;padding:8px 12px;margin:8px 0}
#case[hidden]{display:none}
a.c{cursor:pointer;color:#1f5fbf;text-decoration:underline}
svg{background:#fbfcfd;border:1px solid #d5dae1}
svg text{font-size:11px}
.muted{color:#666}
td.b{font-weight:bold}
div.wide{overflow-x:auto;max-width:100%}
p.note{max-width:70em}
"""

SCRIPT = r"""
(function () {
  "use strict";
  var started = performance.now();
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function svg(tag, attrs, text) {
    var e = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (var k in attrs) e.setAttribute(k, String(attrs[k]));
    if (text !== undefined) e.textContent = String(text);
    return e;
  }
  function show(v) { return typeof v === "string" ? v : JSON.stringify(v); }
  function num(x) { return typeof x === "number" ? String(+x.toPrecision(4)) : show(x); }
  function qs(q) {
    return Object.keys(q).map(function (a) { return a + " " + num(q[a]); }).join(", ");
  }
  async function load() {
    var text = document.getElementById("data").textContent.trim();
    var bytes = Uint8Array.from(atob(text), function (c) { return c.charCodeAt(0); });
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }
  function table1(data) {
    // explaincheck report's Table 1 over every execution (computed when the file was written):
    // the filters choose the executions listed below, never the figures
    var box = document.getElementById("table1"), t1 = data.table1;
    box.textContent = "";
    if (!t1) { box.appendChild(el("p", "no executions", "muted")); return; }
    document.getElementById("table1-title").textContent = t1.title;
    var t = el("table"), groups = el("tr"), head = el("tr"), last = null, span = null;
    groups.appendChild(el("th", "", "l"));
    groups.appendChild(el("th", "", "l"));
    t1.columns.forEach(function (c) {
      if (span && c[0] === last) { span.colSpan += 1; return; }
      span = el("th", c[0]); span.colSpan = 1; last = c[0]; groups.appendChild(span);
    });
    head.appendChild(el("th", "environment", "l"));
    head.appendChild(el("th", "LLM", "l"));
    t1.columns.forEach(function (c) {
      var th = el("th", c[2]); th.title = c[1]; head.appendChild(th);  // Sat. (satisfy)
    });
    t.appendChild(groups);
    t.appendChild(head);
    t1.rows.forEach(function (r) {
      var tr = el("tr");
      tr.appendChild(el("td", r.environment, "l"));
      tr.appendChild(el("td", r.llm, "l"));
      r.cells.forEach(function (v, i) { tr.appendChild(el("td", v, r.bold[i] ? "b" : "")); });
      t.appendChild(tr);
    });
    var wide = el("div", null, "wide");  // a wide table scrolls in its box, not the page
    wide.appendChild(t);
    box.appendChild(wide);
    box.appendChild(el("p", t1.note, "muted note"));
  }
  function options(select, values) {
    values.forEach(function (v) { var o = el("option", v); o.value = v; select.appendChild(o); });
  }
  function filtered(data) {
    var f = {};
    ["llm", "category", "verdict", "stability"].forEach(function (k) {
      f[k] = document.getElementById("f-" + k).value;
    });
    return data.runs.filter(function (r) {
      return (!f.llm || r[1] === f.llm) &&
        (!f.category || data.cases[r[0]].category === f.category) &&
        (!f.verdict || r[3] === f.verdict) &&
        (!f.stability || data.stability[r[0] + "|" + r[1]] === f.stability);
    });
  }
  function listing(data) {
    var runs = filtered(data), box = document.getElementById("list");
    box.textContent = "";
    var t = el("table"), head = el("tr");
    ["case", "environment", "category", "LLM", "repeat", "verdict", "stability", "reason"]
      .forEach(function (h) { head.appendChild(el("th", h, "l")); });
    t.appendChild(head);
    runs.slice(0, 500).forEach(function (r) {
      var c = data.cases[r[0]], tr = el("tr"), a = el("a", r[0], "c");
      a.href = "#case=" + r[0];
      var td = el("td", null, "l"); td.appendChild(a); tr.appendChild(td);
      [c.environment, c.category, r[1], r[2]].forEach(function (v) {
        tr.appendChild(el("td", v, "l"));
      });
      tr.appendChild(el("td", r[3], "l " + r[3]));
      tr.appendChild(el("td", data.stability[r[0] + "|" + r[1]], "l nw"));
      tr.appendChild(el("td", r[6].slice(0, 160), "l"));
      t.appendChild(tr);
    });
    var more = runs.length > 500 ? " (first 500 listed)" : "";
    box.appendChild(el("p", runs.length + " executions" + more, "muted"));
    box.appendChild(t);
  }
  function graph(c) {
    var g = c.graph, n = g.nodes.length, w = 520, h = 300, cx = w / 2, cy = h / 2;
    var s = svg("svg", {width: w, height: h, viewBox: "0 0 " + w + " " + h, role: "img"});
    var pos = {};
    g.nodes.forEach(function (node, i) {
      var inCase = c.states.indexOf(node[0]) >= 0;
      var k = c.states.indexOf(node[0]);
      if (inCase) {
        pos[node[0]] = [cx + (k - (c.states.length - 1) / 2) * 90, cy];
      } else {
        var a = 2 * Math.PI * i / Math.max(1, n);
        pos[node[0]] = [cx + 220 * Math.cos(a), cy + 120 * Math.sin(a)];
      }
    });
    g.edges.forEach(function (e) {
      var a = pos[e[0]], b = pos[e[1]];
      if (!a || !b) return;
      var line = svg("line", {x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: "#8aa0b8",
        "stroke-width": 0.5 + 2 * e[3]});
      line.appendChild(svg("title", {}, e[2] + " → " + e[1] + " (p = " + e[3] + ")"));
      s.appendChild(line);
    });
    g.nodes.forEach(function (node) {
      var p = pos[node[0]], inCase = c.states.indexOf(node[0]) >= 0;
      var fill = node[2] ? "#2e7d32" : node[3] ? "#9e9e9e" : inCase ? "#ffb300" : "#90caf9";
      var circle = svg("circle", {cx: p[0], cy: p[1], r: inCase ? 16 : 11, fill: fill,
        stroke: "#23364f"});
      circle.appendChild(svg("title", {}, "state " + node[0] + ": V = " + node[1]));
      s.appendChild(circle);
      s.appendChild(svg("text", {x: p[0] - 8, y: p[1] + 4}, node[0]));
    });
    if (g.more) s.appendChild(svg("text", {x: 8, y: h - 8}, "+" + g.more + " more successors"));
    return s;
  }
  function openCase(data) {
    var m = /^#case=([0-9a-f]+)$/.exec(location.hash), box = document.getElementById("case");
    if (!m || !data.cases[m[1]]) { box.hidden = true; return; }
    var id = m[1], c = data.cases[id];
    box.hidden = false; box.textContent = ""; box.dataset.case = id;
    box.appendChild(el("h2", "Case " + id + ": " + c.category + " on " + c.environment));
    box.appendChild(el("p", "selection " + c.selection + " · states " + c.states.join(", ") +
      " · δ = " + c.delta, "muted"));
    box.appendChild(el("h3", "Prompt"));
    box.appendChild(el("pre", c.prompt));
    box.appendChild(el("h3", "The oracle"));
    box.appendChild(el("p", "expected: " + show(c.expected)));
    var ft = el("table"), fh = el("tr");
    ["state", "valuation", "V", "D", "Q", "best", "worst", "dead end", "bottleneck"]
      .forEach(function (h) { fh.appendChild(el("th", h, "l")); });
    ft.appendChild(fh);
    c.facts.forEach(function (f) {
      var tr = el("tr");
      [f.id, show(f.valuation), num(f.V), f.D === null ? "–" : num(f.D), qs(f.Q), f.best.join(", "),
       f.worst.join(", "), f.dead_end, f.bottleneck]
        .forEach(function (v) { tr.appendChild(el("td", v, "l")); });
      ft.appendChild(tr);
    });
    box.appendChild(ft);
    box.appendChild(el("h3", "Neighbourhood in the MDP"));
    box.appendChild(graph(c));
    box.appendChild(el("h3", "Replies"));
    data.runs.forEach(function (r) {
      if (r[0] !== id) return;
      var d = el("div", null, "reply");
      d.appendChild(el("p", r[1] + " · repeat " + r[2] + " · " + r[3] + " · " +
        data.stability[r[0] + "|" + r[1]], r[3]));
      d.appendChild(el("pre", r[4]));
      d.appendChild(el("p", "parsed: " + show(r[5]) + " — " + r[6]));
      box.appendChild(d);
    });
    window.scrollTo(0, 0);
  }
  load().then(function (data) {
    document.getElementById("title").textContent = "explaincheck · " + data.title;
    var counts = {};
    data.runs.forEach(function (r) { counts[r[3]] = (counts[r[3]] || 0) + 1; });
    document.getElementById("summary").textContent = data.runs.length + " executions, " +
      Object.keys(data.cases).length + " cases, " + data.llms.length + " LLMs; " +
      Object.keys(counts).sort().map(function (k) { return k + " " + counts[k]; }).join(", ");
    if (data.plugins && data.plugins.length)  // the plugin packages the campaigns used
      document.getElementById("summary").textContent += "; plugins: " + data.plugins.join("; ");
    options(document.getElementById("f-llm"), data.llms);
    options(document.getElementById("f-category"), data.categories);
    options(document.getElementById("f-verdict"),
      ["pass", "fail", "invalid", "error", "uncertain"]);
    options(document.getElementById("f-stability"),
      ["stable-pass", "stable-fail", "flaky", "single run"]);
    document.getElementById("f-verdict").value = location.hash ? "" : "fail";
    ["llm", "category", "verdict", "stability"].forEach(function (k) {
      document.getElementById("f-" + k).addEventListener("change", function () { listing(data); });
    });
    table1(data);
    listing(data);
    openCase(data);
    window.addEventListener("hashchange", function () { openCase(data); });
    document.body.dataset.ready = (performance.now()).toFixed(0);
    document.body.dataset.render = (performance.now() - started).toFixed(0);
  }).catch(function (e) {
    document.getElementById("summary").textContent = "cannot read the data: " + e;
  });
})();
"""

BODY = """<header><h1 id="title">explaincheck</h1><div id="summary">Loading…</div></header>
<main>
<div id="case" hidden></div>
<h2 id="table1-title">Table 1</h2>
<div id="table1"></div>
<h2>Executions</h2>
<div class="filters">
<label>LLM <select id="f-llm"><option value="">all</option></select></label>
<label>category <select id="f-category"><option value="">all</option></select></label>
<label>verdict <select id="f-verdict"><option value="">all</option></select></label>
<label>stability <select id="f-stability"><option value="">all</option></select></label>
</div>
<div id="list"></div>
</main>"""


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def policy() -> str:
    """The page's Content Security Policy: its own script and style, nothing else."""
    return (
        f"default-src 'none'; script-src {_hash(SCRIPT)}; style-src {_hash(STYLE)};"
        " img-src 'none'; connect-src 'none'; font-src 'none'; media-src 'none';"
        " object-src 'none'; frame-src 'none'; worker-src 'none'; base-uri 'none';"
        " form-action 'none'"
    )


def render_page(data: dict[str, Any]) -> str:
    """The whole HTML text for ``data`` (``bundle.build_bundle``); deterministic."""
    packed = gzip.compress(json.dumps(data, separators=(",", ":")).encode(), 9, mtime=0)
    payload = base64.b64encode(packed).decode()
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{policy()}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        "<title>explaincheck results</title>\n"
        f"<style>{STYLE}</style></head>\n<body>\n{BODY}\n"
        f'<script id="data" type="application/gzip">{payload}</script>\n'
        f"<script>{SCRIPT}</script>\n</body></html>\n"
    )


def write_share(db_path: str | Path, out: str | Path) -> tuple[Path, int]:
    """Write the share file of ``db_path`` to ``out`` (atomically); its path and size."""
    if not Path(db_path).is_file():
        raise ExplaincheckError(f"{db_path}: no such results file")
    text = render_page(build_bundle(db_path)).encode()
    target = Path(out)
    try:  # the umask's mode: a file meant for others (a cache's writer made it 0600)
        write_bytes_atomically(target, text)
    except OSError as error:
        raise ExplaincheckError(f"cannot write {target}: {error.strerror or error}") from None
    return target, len(text)
