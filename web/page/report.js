// The standalone report (`perfcast report`): REPORT holds what the commands print as JSON; this
// draws it with the page's charts (charts.js), with the assumptions, the hardware figures' sources
// and the measured error of this kind of prediction.
"use strict";

(() => {
  const R = REPORT, p = R.prediction, root = document.getElementById("report");
  const el = (tag, text, attrs = {}) => Object.assign(document.createElement(tag), { textContent: text ?? "" }, attrs);
  const section = (heading) => { const s = el("section"); s.append(el("h2", heading)); root.append(s); return s; };
  const pct = (x) => `${(100 * x).toFixed(1)} %`;

  root.append(el("h1", p.scenario.name));
  root.append(el("p", `perfcast ${R.version} · scenario ${R.scenario_file} · ${p.scenario.workload} on ${p.scenario.devices ?? ""} × ${p.scenario.accelerator} · ${p.scenario.layout}`));

  const head = el("div", "", { className: "headline" });
  for (const [id, label, value, band] of PerfcastCharts.figures(p)) {
    const d = el("div");
    d.append(el("small", label), el("b", value, { id }), el("i", band, { className: "band" }));
    head.append(d);
  }
  root.append(head);
  if (p.bottleneck) root.append(el("p", `Bottleneck: ${p.bottleneck}`));

  const trust = section("How far to trust it");
  const v = R.validation.summary;
  trust.append(el("p", v.held_out
    ? `Scored against ${v.held_out} measured ${R.validation.cases[0]?.kind ?? ""} cases the models were not fitted to: median error ${pct(v.median_abs_error)}, mean ${pct(v.mean_abs_error)}, worst ${pct(v.max_abs_error)}; ${v.within_tolerance} of ${v.scored} within their tolerance (perfcast validate).`
    : "No held-out measured case of this kind."));
  if (R.serving_validation) {
    const sv = R.serving_validation.summary;
    trust.append(el("p", `Serving under load (capacity): median error ${pct(sv.median_abs_error)} over ${sv.held_out} held-out cases.`));
  }
  const sources = el("table");
  sources.append(el("tr", "", { innerHTML: "<th>source</th><th>cases</th><th>median error</th>" }));
  for (const [source, s] of Object.entries(R.validation.by_source).sort((a, b) => b[1].held_out - a[1].held_out)) {
    if (!s.held_out) continue;
    const row = el("tr");
    row.append(el("td", source), el("td", String(s.held_out)), el("td", pct(s.median_abs_error)));
    sources.append(row);
  }
  trust.append(sources);

  const charts = el("div", "", { className: "charts" });
  root.append(charts);
  const canvas = () => { const f = el("figure"); const c = el("canvas"); f.append(c); charts.append(f); return c; };
  let drawn = 0;
  const draw = (fn, ...args) => { try { fn(canvas(), ...args); drawn++; } catch (e) { console.warn(e.message); } };
  draw(PerfcastCharts.breakdown, p);
  draw(PerfcastCharts.memory, p.memory);
  draw(PerfcastCharts.roofline, R.roofline);
  if (p.inference) draw(PerfcastCharts.throughput, p);
  if (R.capacity) draw(PerfcastCharts.latency, R.capacity);
  if (R.capacity_note) root.append(el("p", R.capacity_note));
  document.body.dataset.charts = String(drawn);

  const assumptions = section("Assumptions");
  const list = el("ul");
  for (const a of p.assumptions) list.append(el("li", a));
  assumptions.append(list);

  // Every sourced figure of the hardware records: what it says and where it comes from.
  const hardware = section("Hardware figures and their sources");
  for (const record of [R.hardware, R.system].filter(Boolean)) {
    hardware.append(el("h3", record.name));
    const table = el("table");
    table.append(el("tr", "", { innerHTML: "<th>figure</th><th>value</th><th>source</th>" }));
    const walk = (node, path) => {
      if (!node || typeof node !== "object") return;
      if (node.display !== undefined && node.source) {
        const row = el("tr");
        const s = node.source;
        row.append(el("td", path), el("td", node.display), el("td", [s.title, s.locator, s.url].filter(Boolean).join(", ")));
        table.append(row);
        return;
      }
      for (const [k, child] of Object.entries(node)) walk(child, path ? `${path}.${k}` : k);
    };
    walk(record, "");
    hardware.append(table);
  }
})();
