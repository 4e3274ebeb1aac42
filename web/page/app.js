// The what-if page of `perfcast serve`: a shipped scenario as the start, the fields a user turns
// as overrides of its keys, every answer from the server's JSON API (web/api.hpp). The address
// holds the preset and the overrides, so a link reproduces the what-if.
"use strict";

// The keys offered as fields, by the scenario kind they apply to; each is drawn from the schema
// (GET /api/site) with its type, choices, default and help.
const FIELDS = {
  common: [
    ["Model", ["model.preset"]],
    ["Hardware", ["hardware.system", "hardware.nodes", "hardware.accelerator", "hardware.count", "hardware.power_limit", "cost.offer"]],
    ["Layout", ["parallelism.tp", "parallelism.pp", "parallelism.ep"]],
  ],
  training: [
    ["Layout (training)", ["parallelism.vp", "parallelism.cp", "parallelism.zero", "parallelism.sequence_parallel", "parallelism.schedule"]],
    ["Training", ["training.stack", "training.precision", "training.seq_len", "training.global_batch", "training.micro_batch", "training.recompute", "training.tokens"]],
  ],
  inference: [
    ["Serving", ["inference.engine", "inference.batch", "inference.input_len", "inference.output_len", "inference.weight_dtype", "inference.kv_dtype",
      "inference.compute_dtype", "serving.arrival_rate", "serving.ttft_slo_s", "serving.tpot_slo_s"]],
  ],
};
// Keys that choose the hardware one way or the other: setting one side clears the other.
const BY_SYSTEM = ["hardware.system", "hardware.nodes"], BY_ACCELERATOR = ["hardware.accelerator", "hardware.count", "hardware.gpus_per_node"];

const $ = (id) => document.getElementById(id);
let site = null;          // GET /api/site
let state = { preset: "", overrides: {} };
let generation = 0;       // answers of an older recompute are dropped
let debounce = null;

function presetOf(name) { return site.presets.find((p) => p.name === name) || site.presets[0]; }
function keyOf(dotted) { const at = dotted.lastIndexOf("."); return [dotted.slice(0, at), dotted.slice(at + 1)]; }
function schemaKey(dotted) {
  const [table, key] = keyOf(dotted);
  const t = site.schema.find((x) => x.table === table);
  return t && t.keys.find((k) => k.key === key);
}
function valueAt(scenario, dotted) {
  const [table, key] = keyOf(dotted);
  let t = scenario;
  for (const part of table.split(".")) t = t && t[part];
  return t ? t[key] : undefined;
}
function setAt(scenario, dotted, value) {
  const [table, key] = keyOf(dotted);
  let t = scenario;
  for (const part of table.split(".")) t = t[part] = t[part] || {};
  if (value === undefined) delete t[key]; else t[key] = value;
}
// A field's text as the JSON value the schema expects; the server names anything wrong in one line.
function parsed(dotted, text) {
  const k = schemaKey(dotted);
  if (text === "") return undefined;
  if (k && k.type === "true/false") return text === "true";
  if (/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(text)) return Number(text);
  return text;
}

// --- the address ---------------------------------------------------------------------------
function readAddress() {
  const q = new URLSearchParams(location.search);
  state.preset = q.get("preset") || "";
  state.overrides = {};
  for (const [k, v] of q) if (k !== "preset") state.overrides[k] = v;
}
function writeAddress() {
  const q = new URLSearchParams({ preset: state.preset });
  for (const [k, v] of Object.entries(state.overrides)) q.set(k, v);
  history.replaceState(null, "", `${location.pathname}?${q}`);
}

// --- the scenario a request sends ----------------------------------------------------------
function scenario() {
  const s = structuredClone(presetOf(state.preset).scenario);
  const set = (k) => state.overrides[k] !== undefined && state.overrides[k] !== "";
  if (BY_SYSTEM.some(set) && !BY_ACCELERATOR.some(set)) BY_ACCELERATOR.forEach((k) => setAt(s, k, undefined));
  if (BY_ACCELERATOR.some(set) && !BY_SYSTEM.some(set)) BY_SYSTEM.forEach((k) => setAt(s, k, undefined));
  if (set("cost.offer") && s.cost) delete s.cost.purchase;
  for (const [k, v] of Object.entries(state.overrides)) setAt(s, k, parsed(k, v));
  const pasted = $("hf-config").value.trim();
  if (pasted) {
    try {
      s.model = { hf_config: JSON.parse(pasted) };
    } catch (e) {
      throw new Error(`the pasted config.json is not valid JSON: ${e.message}`);
    }
  }
  return s;
}

// --- the form ------------------------------------------------------------------------------
function fieldFor(dotted, preset) {
  const k = schemaKey(dotted);
  if (!k) return null;
  const label = document.createElement("label");
  label.title = `${dotted}: ${k.help}${k.unit ? ` (${k.unit})` : ""}; default ${k.default}`;
  const name = document.createElement("span");
  name.textContent = dotted.split(".").pop().replace(/_/g, " ") + (k.unit ? ` (${k.unit})` : "");
  label.append(name);
  const current = state.overrides[dotted] ?? (valueAt(preset.scenario, dotted) ?? "").toString();
  let input;
  if (k.type === "choice" || k.type === "name" || k.type === "true/false") {
    input = document.createElement("select");
    const options = k.type === "choice" ? k.choices : k.type === "name" ? site.names[k.refers_to] || [] : ["true", "false"];
    for (const o of ["", ...options]) {
      const opt = document.createElement("option");
      opt.value = o;
      opt.textContent = o === "" ? `(${k.default})` : o;
      input.append(opt);
    }
  } else {
    input = document.createElement("input");
    input.type = "text";
    input.placeholder = k.default;
  }
  input.id = `field-${dotted}`;
  input.name = dotted;
  input.value = current;
  input.addEventListener(input.tagName === "SELECT" ? "change" : "input", () => changed(dotted, input.value));
  label.append(input);
  return label;
}

function buildForm() {
  const preset = presetOf(state.preset);
  const box = $("fields");
  box.replaceChildren();
  for (const [heading, keys] of [...FIELDS.common, ...FIELDS[preset.kind]]) {
    const h = document.createElement("h3");
    h.textContent = heading;
    box.append(h);
    for (const k of keys) {
      const f = fieldFor(k, preset);
      if (f) box.append(f);
    }
  }
  document.querySelectorAll(".inference-only").forEach((e) => (e.hidden = preset.kind !== "inference"));
}

function changed(dotted, text) {
  const presetValue = (valueAt(presetOf(state.preset).scenario, dotted) ?? "").toString();
  if (text === presetValue) delete state.overrides[dotted]; else state.overrides[dotted] = text;
  writeAddress();
  clearTimeout(debounce);
  debounce = setTimeout(recompute, 120);
}

// --- answers -------------------------------------------------------------------------------
async function post(endpoint, body) {
  const started = performance.now();
  const res = await fetch(`/api/${endpoint}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const answer = await res.json();
  if (!res.ok) throw new Error(answer.error || `${endpoint}: status ${res.status}`);
  const server = /dur=([\d.]+)/.exec(res.headers.get("Server-Timing") || "");
  return { answer, server_ms: server ? Number(server[1]) : null, round_trip_ms: performance.now() - started };
}

function chart(name, fn, ...args) {
  try {
    fn(...args);
  } catch (e) {
    console.warn(`chart ${name}: ${e.message}`);
  }
}

async function recompute() {
  const mine = ++generation;
  const preset = presetOf(state.preset);
  let s;
  try {
    s = scenario();
  } catch (e) {
    return showError(e.message);
  }
  try {
    const asks = [post("predict", { scenario: s }), post("roofline", { scenario: s })];
    const serving = preset.kind === "inference" && valueAt(s, "serving.ttft_slo_s") !== undefined && valueAt(s, "serving.tpot_slo_s") !== undefined;
    if (serving) asks.push(post("capacity", { scenario: s }));
    const answers = await Promise.all(asks);
    if (mine !== generation) return;
    const [predicted, roof, capacity] = answers;
    showError("");
    const p = predicted.answer;
    $("headline").replaceChildren(...PerfcastCharts.figures(p).map(([id, label, value, band]) => {
      const d = document.createElement("div");
      d.innerHTML = `<small></small><b id="${id}"></b><i class="band"></i>`;
      d.querySelector("small").textContent = label;
      d.querySelector("b").textContent = value;
      d.querySelector("i").textContent = band;
      return d;
    }));
    $("bottleneck").textContent = p.bottleneck ? `Bottleneck: ${p.bottleneck}` : "";
    $("assumptions").replaceChildren(...p.assumptions.map((a) => Object.assign(document.createElement("li"), { textContent: a })));
    chart("breakdown", PerfcastCharts.breakdown, $("chart-breakdown"), p);
    chart("memory", PerfcastCharts.memory, $("chart-memory"), p.memory);
    chart("roofline", PerfcastCharts.roofline, $("chart-roofline"), roof.answer);
    if (p.inference) chart("throughput", PerfcastCharts.throughput, $("chart-throughput"), p);
    if (capacity) chart("latency", PerfcastCharts.latency, $("chart-latency"), capacity.answer);
    $("latency-note").textContent = serving ? "" : "latency against load needs [serving] ttft_slo_s and tpot_slo_s";
    const server = answers.map((a) => a.server_ms).filter((x) => x != null);
    $("timing").textContent = `server ${server.map((x) => x.toFixed(1)).join(" + ")} ms; round trip ${Math.max(...answers.map((a) => a.round_trip_ms)).toFixed(0)} ms`;
    document.body.dataset.recomputed = String(mine);
  } catch (e) {
    if (mine === generation) showError(e.message);
  }
}

function showError(message) {
  $("error").hidden = !message;
  $("error").textContent = message;
  if (message) document.body.dataset.recomputed = String(generation);
}

async function trust(kind) {
  const res = await fetch(`/api/validate?kind=${kind}`);
  if (!res.ok) return;
  const v = await res.json();
  const s = v.summary;
  $("trust").textContent = s.held_out
    ? `Against measurements: ${kind} predictions have a held-out median error of ${(100 * s.median_abs_error).toFixed(1)} % over ${s.held_out} cases (perfcast validate --kind ${kind}).`
    : "";
}

async function runSweep() {
  const kind = presetOf(state.preset).kind;
  try {
    const pareto = kind === "training" ? ["step_time", "memory"] : ["tokens_per_s", "ttft"];
    const r = await post("sweep", { scenario: scenario(), pareto, top: 10 });
    $("sweep-figure").hidden = false;
    chart("pareto", PerfcastCharts.pareto, $("chart-pareto"), r.answer);
  } catch (e) {
    showError(e.message);
  }
}

async function runCompare() {
  const systems = [...$("compare-systems").selectedOptions].map((o) => o.value);
  if (!systems.length) return showError("compare: choose one or more systems");
  const s = scenario();
  const nodes = valueAt(s, "hardware.nodes") || 1;
  try {
    const r = await post("compare", { scenario: s, hardware: systems.map((x) => `system=${x},nodes=${nodes}`) });
    $("compare-figure").hidden = false;
    chart("compare", PerfcastCharts.compare, $("chart-compare"), r.answer);
  } catch (e) {
    showError(e.message);
  }
}

async function start() {
  site = await (await fetch("/api/site")).json();
  readAddress();
  if (!site.presets.some((p) => p.name === state.preset)) state.preset = site.presets.find((p) => p.name.includes("training"))?.name || site.presets[0].name;
  const select = $("preset");
  for (const p of site.presets) select.append(Object.assign(document.createElement("option"), { value: p.name, textContent: `${p.title}` }));
  select.value = state.preset;
  select.addEventListener("change", () => {
    state = { preset: select.value, overrides: {} };
    writeAddress();
    buildForm();
    recompute();
    trust(presetOf(state.preset).kind);
  });
  for (const name of site.names["hardware_db system"]) $("compare-systems").append(Object.assign(document.createElement("option"), { value: name, textContent: name }));
  $("hf-config").addEventListener("input", () => { clearTimeout(debounce); debounce = setTimeout(recompute, 300); });
  $("run-sweep").addEventListener("click", runSweep);
  $("run-compare").addEventListener("click", runCompare);
  writeAddress();
  buildForm();
  recompute();
  trust(presetOf(state.preset).kind);
}

start();
