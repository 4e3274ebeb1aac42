// perfcast's charts, drawn with Chart.js from the JSON the commands print (`--format json`); the
// page (app.js) and the standalone report (report.js) both use them. Each takes a <canvas> and
// the command's answer, and replaces whatever chart the canvas held.
"use strict";

const PerfcastCharts = (() => {
  const palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
  const GiB = 1024 ** 3;

  function draw(canvas, config) {
    const old = Chart.getChart(canvas);
    if (old) old.destroy();
    config.options = Object.assign({ animation: false, responsive: true, maintainAspectRatio: false }, config.options || {});
    return new Chart(canvas, config);
  }

  // Log-axis ticks at powers of ten only.
  const decades = (v) => (Number.isInteger(Math.log10(v)) ? Number(v).toLocaleString("en-US") : "");
  const words = (key) => key.replace(/_s$|_bytes$/, "").replace(/_/g, " ");
  const title = (text) => ({ display: true, text });

  // Training: the step's parts (training.breakdown_s). Inference: one request's prefill and decode.
  function breakdown(canvas, prediction) {
    let parts, caption;
    if (prediction.training) {
      parts = Object.entries(prediction.training.breakdown_s).filter(([, v]) => v > 0);
      caption = `step ${prediction.training.step_time_s.toFixed(3)} s, by part (s)`;
    } else {
      const i = prediction.inference, out = prediction.scenario.output_len;
      parts = [
        ["prefill compute", i.prefill_s - i.prefill_comm_s],
        ["prefill communication", i.prefill_comm_s],
        ["decode compute", (i.decode_step_s - i.decode_comm_s) * out],
        ["decode communication", i.decode_comm_s * out],
      ].filter(([, v]) => v > 0);
      caption = `one request at batch ${i.batch}: ${i.latency_s.toFixed(3)} s (s)`;
    }
    return draw(canvas, {
      type: "bar",
      data: { labels: parts.map(([k]) => words(k)), datasets: [{ label: "seconds", data: parts.map(([, v]) => v), backgroundColor: palette[0] }] },
      options: { indexAxis: "y", plugins: { legend: { display: false }, title: title(caption) } },
    });
  }

  // Memory per device: each component stacked, beside the usable capacity.
  function memory(canvas, m) {
    const parts = Object.entries(m.breakdown_bytes).filter(([, v]) => v > 0);
    const datasets = parts.map(([k, v], n) => ({ label: words(k), data: [v / GiB, null], backgroundColor: palette[n % palette.length], stack: "s" }));
    datasets.push({ label: "usable capacity", data: [null, m.capacity_bytes / GiB], backgroundColor: "#cccccc", stack: "s" });
    return draw(canvas, {
      type: "bar",
      data: { labels: ["needed", "usable"], datasets },
      options: {
        indexAxis: "y",
        scales: { x: { stacked: true, title: title("GiB per device") }, y: { stacked: true } },
        plugins: { title: title(m.verdict) },
      },
    });
  }

  // Roofline: each op with FLOPs at its arithmetic intensity and achieved rate, under the roofs.
  function roofline(canvas, r) {
    const peak = r.peak_ops_per_s / 1e12, bw = r.memory_bandwidth_Bps / 1e12;
    const roof = [];
    for (let e = -1; e <= 5; e += 0.05) {
      const x = 10 ** e;
      roof.push({ x, y: Math.min(peak, bw * x) });
    }
    const datasets = [{ type: "line", label: `roof (${r.precision}, ${r.ridge_level})`, data: roof, borderColor: "#444", pointRadius: 0, borderWidth: 1.5 }];
    r.sections.forEach((s, n) => {
      const points = s.ops
        .filter((op) => op.flops > 0 && op.time_s > 0)
        .map((op) => ({ x: op.flops / (op.bytes_read + op.bytes_written), y: op.flops / op.time_s / 1e12, name: op.name }));
      if (points.length) datasets.push({ type: "scatter", label: s.title, data: points, backgroundColor: palette[(n + 1) % palette.length] });
    });
    return draw(canvas, {
      type: "scatter",
      data: { datasets },
      options: {
        scales: {
          x: { type: "logarithmic", title: title("arithmetic intensity (FLOP/byte)"), ticks: { callback: decades } },
          y: { type: "logarithmic", title: title("achieved TFLOP/s"), ticks: { callback: decades } },
        },
        plugins: {
          title: title(`${r.accelerator}: ridge at ${r.ridge_flop_per_byte.toFixed(0)} FLOP/byte`),
          legend: { position: "bottom", labels: { boxWidth: 12, font: { size: 11 } } },
          tooltip: { callbacks: { label: (c) => `${c.raw.name || "roof"}: ${c.raw.y.toFixed(1)} TFLOP/s at ${c.raw.x.toFixed(1)} FLOP/B` } },
        },
      },
    });
  }

  // Inference: decode throughput against batch (inference.throughput_curve), to the largest batch that fits.
  function throughput(canvas, prediction) {
    const i = prediction.inference;
    const curve = i.throughput_curve || [];
    return draw(canvas, {
      type: "line",
      data: { datasets: [{ label: "output tokens/s", data: curve.map((p) => ({ x: p.batch, y: p.tokens_per_s })), borderColor: palette[2], backgroundColor: palette[2] }] },
      options: {
        parsing: false,
        scales: { x: { type: "logarithmic", title: title("batch (sequences)") }, y: { title: title("output tokens/s") } },
        plugins: { title: title(`decode throughput against batch (${i.max_batch} fit)`), legend: { display: false } },
      },
    });
  }

  // Serving: TTFT and TPOT quantiles against the offered rate (capacity.latency_curve).
  function latency(canvas, c) {
    const curve = c.capacity.latency_curve;
    const line = (label, key, axis, color, scale) => ({ label, data: curve.map((p) => ({ x: p.rate_per_s, y: p[key] * scale })), yAxisID: axis, borderColor: color, backgroundColor: color });
    return draw(canvas, {
      type: "line",
      data: {
        datasets: [
          line("TTFT p50 (s)", "ttft_p50_s", "y", palette[0], 1),
          line("TTFT p99 (s)", "ttft_p99_s", "y", palette[9], 1),
          line("TPOT p50 (ms)", "tpot_p50_s", "y2", palette[1], 1000),
          line("TPOT p99 (ms)", "tpot_p99_s", "y2", palette[3], 1000),
        ],
      },
      options: {
        parsing: false,
        scales: {
          x: { type: "linear", title: title("requests/s per replica") },
          y: { title: title("TTFT (s)") },
          y2: { position: "right", title: title("TPOT (ms)"), grid: { drawOnChartArea: false } },
        },
        plugins: { title: title("latency against load, one replica") },
      },
    });
  }

  // A sweep's Pareto front over its first two metrics (sweep.pareto_front), the best rows beside it.
  function pareto(canvas, answer) {
    const s = answer.sweep;
    // The sweep's metric names (engine/sweep) and the figure each row carries for it.
    const figure = { time_to_train: "time_to_train_s", step_time: "step_time_s", memory: "memory_B", usd: "usd", co2: "co2e_kg", energy: "energy_J",
      tokens_per_dollar: "tokens_per_usd", ttft: "ttft_s", tpot: "tpot_s", e2e: "e2e_s", co2_per_mtok: "co2e_kg_per_mtok" };
    const [mx, my] = s.pareto_metrics;
    const key = (m) => figure[m] || m;
    const value = (row, m) => { const v = row.figures[key(m)]; return v != null && key(m).endsWith("_B") ? v / GiB : v; };
    const axis = (m) => (key(m).endsWith("_B") ? `${m} (GiB per device)` : key(m));
    const points = (rows) => rows.map((r) => ({ x: value(r, mx), y: value(r, my), name: r.layout.label })).filter((p) => p.x != null && p.y != null);
    return draw(canvas, {
      type: "scatter",
      data: {
        datasets: [
          { label: "Pareto front", data: points(s.pareto_front).sort((a, b) => a.x - b.x), showLine: true, borderColor: palette[3], backgroundColor: palette[3] },
          { label: `best by ${s.objective}`, data: points(s.best), backgroundColor: palette[0] },
        ],
      },
      options: {
        scales: { x: { title: title(axis(mx)) }, y: { title: title(axis(my)) } },
        plugins: { title: title(`Pareto front of ${s.pareto_front.length} layouts: ${mx} against ${my}`), tooltip: { callbacks: { label: (c) => c.raw.name } } },
      },
    });
  }

  // `compare`: the variants side by side on throughput (and cost where priced).
  function compare(canvas, c) {
    const rows = c.rows.filter((r) => r.tokens_per_s != null);
    const label = (r) => [r.hardware, r.cost, r.region].filter((x) => x !== "(scenario)").join(" · ") || "the scenario";
    const datasets = [{ label: "tokens/s", data: rows.map((r) => r.tokens_per_s), backgroundColor: palette[0], xAxisID: "x" }];
    // Each row's empirical P10-P90 of tokens/s (its bands), as a floating bar beside the point.
    const spread = (r) => r.bands?.figures?.tokens_per_s;
    if (rows.some(spread))
      datasets.push({ label: "tokens/s P10-P90", data: rows.map((r) => (spread(r) ? [spread(r).p10, spread(r).p90] : null)),
                      backgroundColor: palette[0] + "55", xAxisID: "x" });
    if (rows.some((r) => r.usd != null)) datasets.push({ label: "USD", data: rows.map((r) => r.usd), backgroundColor: palette[1], xAxisID: "x2" });
    return draw(canvas, {
      type: "bar",
      data: { labels: rows.map(label), datasets },
      options: {
        indexAxis: "y",
        scales: { x: { title: title("tokens/s") }, x2: { position: "top", display: datasets.length > 1, title: title("USD"), grid: { drawOnChartArea: false } } },
        plugins: { title: title(`compare: ${c.kind}`) },
      },
    });
  }

  // The headline figures of a prediction, [id, label, value text, band text], for the page and the report.
  // The band text is the empirical P10-P90 of the figure that judges it (prediction.bands, F-UNC-2), moved
  // to the value shown by the same ratio, with the cases behind it; "" where no band judges it.
  function figures(prediction) {
    const t = prediction.training, i = prediction.inference, m = prediction.memory;
    const fixed = (v, d) => (v == null ? "n/a" : Number(v).toFixed(d));
    const days = (s) => (s == null ? "n/a" : `${(s / 86400).toFixed(1)} days`);
    const count = (v) => Math.round(v).toLocaleString("en-US");
    const judged = (prediction.bands && prediction.bands.figures) || {};
    const band = (name, value, text) => {
      const b = judged[name];
      if (!b || value == null || !(b.predicted > 0)) return "";
      const k = value / b.predicted;
      return `P10-P90 ${text(b.p10 * k)} - ${text(b.p90 * k)} (${b.cases} cases, ${b.sources} sources${b.far ? "; FAR" : ""})`;
    };
    const out = [];
    if (t) {
      out.push(["step-time", "step time", `${fixed(t.step_time_s, 3)} s`, band("step_time", t.step_time_s, (v) => `${fixed(v, 3)} s`)]);
      out.push(["tokens-per-s", "tokens/s", count(t.tokens_per_s), band("tokens_per_s", t.tokens_per_s, count)]);
      out.push(["mfu", "MFU", `${fixed(100 * t.mfu, 1)} %`, band("mfu", t.mfu, (v) => `${fixed(100 * v, 1)} %`)]);
      const wall = t.expected_wall_s ?? t.time_to_train_s;
      if (t.time_to_train_s != null) out.push(["time-to-train", "time to train", days(wall), band("time_to_train", wall, days)]);
    } else if (i) {
      out.push(["step-time", "decode step (TPOT)", `${fixed(1000 * i.decode_step_s, 2)} ms`, band("tpot", i.decode_step_s, (v) => `${fixed(1000 * v, 2)} ms`)]);
      out.push(["ttft", "prefill (TTFT)", `${fixed(1000 * i.prefill_s, 1)} ms`, band("ttft", i.prefill_s, (v) => `${fixed(1000 * v, 1)} ms`)]);
      out.push(["tokens-per-s", "output tokens/s", count(i.decode_tokens_per_s), band("tokens_per_s_per_device", i.decode_tokens_per_s, count)]);
      out.push(["latency", "request latency", `${fixed(i.latency_s, 2)} s`, band("e2e", i.latency_s, (v) => `${fixed(v, 2)} s`)]);
    }
    if (m) out.push(["memory", "memory per device", `${fixed(m.per_device_bytes / GiB, 1)} GiB${m.fits ? "" : " (does not fit)"}`, ""]);
    return out;
  }

  return { breakdown, memory, roofline, throughput, latency, pareto, compare, figures };
})();
