// The ops console's only script, inlined with a CSP nonce. Plain browser
// JavaScript with no build step. It computes no economics: the decision comes
// from POST /v1/gate as a dry run, the curves from POST /v1/gate/curve (the worker's core,
// nothing recorded by either), and editing goes through PUT /v1/admin/pricing/:model.
// Sections: formatting · API calls · charts · calculator · editing.
(() => {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";
  let data = JSON.parse($("console-data").textContent);
  let adminToken = null;

  // ------------------------------------------------------------- formatting
  // One precision for money on the whole page: four decimals, as the reasons write it.
  const usd = (n) => (n < 0 ? "−$" : "$") + Math.abs(n).toLocaleString("en-US", { minimumFractionDigits: 4, maximumFractionDigits: 4 });
  const plain = (n) => n.toLocaleString("en-US", { maximumFractionDigits: 2 });
  const shortUsd = (v) => {
    const a = Math.abs(v);
    const s = a === 0 ? "0" : a >= 1 ? a.toFixed(2) : a >= 0.01 ? a.toFixed(3) : a.toPrecision(2);
    return (v < 0 ? "−$" : "$") + s;
  };
  const shortNum = (v) => (Math.abs(v) >= 1e6 ? `${plain(v / 1e6)}M` : Math.abs(v) >= 1e3 ? `${plain(v / 1e3)}k` : plain(v));
  const status = (node, message, kind) => {
    node.textContent = message;
    node.className = `status${kind ? ` ${kind}` : ""}`;
  };

  // -------------------------------------------------------------- API calls
  /** POSTs JSON to a gate route with the gate key, if one is given: { res, body } (body null when not JSON). */
  async function postGateRoute(path, payload) {
    const headers = { "content-type": "application/json" };
    const key = $("f-gate-key").value.trim();
    if (key !== "") headers.authorization = `Bearer ${key}`;
    const res = await fetch(path, { method: "POST", headers, body: JSON.stringify(payload) });
    return { res, body: await res.json().catch(() => null) };
  }

  function describeError(body, res) {
    const error = body && body.error;
    if (!error) return `HTTP ${res.status}`;
    const issues = (error.issues || []).map((issue) => `${issue.path || "body"}: ${issue.message}`).join("; ");
    return `${error.code}: ${issues || error.message}`;
  }

  // ----------------------------------------------------------------- charts
  function el(name, attrs, text) {
    const node = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function emptyChart(svg, message) {
    svg.replaceChildren(el("text", { x: 280, y: 150, "text-anchor": "middle", class: "empty" }, message));
  }

  function niceTicks(min, max, count) {
    const span = max - min || Math.abs(max) || 1;
    const raw = span / count;
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => span / s <= count) || 10 * mag;
    const ticks = [];
    for (let v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step) ticks.push(Math.abs(v) < step * 1e-9 ? 0 : v);
    return ticks;
  }

  // spec: { points: [CurvePoint], here: CurvePoint|undefined, breakEven: number|null, beLabel, xLabel, fmtX, prefilter: number|null }
  // A CurvePoint is the API's { x, fire, net_saving_usd, reason_code }: drawn as it is.
  function drawChart(svg, spec) {
    const W = 560, H = 300, L = 72, R = 18, T = 16, B = 46;
    const xs = spec.points.map((p) => p.x);
    const ys = spec.points.map((p) => p.net_saving_usd).concat([0]);
    const xMin = Math.min(...xs), xMax = Math.max(...xs);
    let yMin = Math.min(...ys), yMax = Math.max(...ys);
    const pad = (yMax - yMin || Math.abs(yMax) || 1e-6) * 0.08;
    yMin -= pad;
    yMax += pad;
    const sx = (x) => L + ((x - xMin) / (xMax - xMin || 1)) * (W - L - R);
    const sy = (y) => T + ((yMax - y) / (yMax - yMin)) * (H - T - B);
    const nodes = [];

    if (spec.prefilter !== null && spec.prefilter > xMin) {
      const x1 = sx(Math.min(spec.prefilter, xMax));
      nodes.push(el("rect", { x: L, y: T, width: x1 - L, height: H - T - B, class: "prefilter", "data-testid": "prefilter" }));
      nodes.push(el("text", { x: L + 6, y: T + 14, class: "prefilter-label" }, "pre-filter: never fires"));
    }
    for (const v of niceTicks(yMin, yMax, 5)) {
      nodes.push(el("line", { x1: L, x2: W - R, y1: sy(v), y2: sy(v), class: "grid" }));
      nodes.push(el("text", { x: L - 8, y: sy(v) + 4, "text-anchor": "end" }, shortUsd(v)));
    }
    for (const v of niceTicks(xMin, xMax, 6)) {
      nodes.push(el("line", { x1: sx(v), x2: sx(v), y1: H - B, y2: H - B + 5, class: "axis" }));
      nodes.push(el("text", { x: sx(v), y: H - B + 18, "text-anchor": "middle" }, spec.fmtX(v)));
    }
    nodes.push(el("line", { x1: L, x2: L, y1: T, y2: H - B, class: "axis" }));
    nodes.push(el("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, class: "axis" }));
    nodes.push(el("line", { x1: L, x2: W - R, y1: sy(0), y2: sy(0), class: "zero", "data-testid": "zero-line" }));
    nodes.push(el("text", { x: (L + W - R) / 2, y: H - 8, "text-anchor": "middle" }, spec.xLabel));
    nodes.push(el("text", { x: 14, y: (T + H - B) / 2, "text-anchor": "middle", transform: `rotate(-90 14 ${(T + H - B) / 2})` }, "net saving (USD)"));

    nodes.push(el("polyline", { class: "curve", points: spec.points.map((p) => `${sx(p.x).toFixed(1)},${sy(p.net_saving_usd).toFixed(1)}`).join(" ") }));
    for (const p of spec.points) {
      const attrs = { cx: sx(p.x), cy: sy(p.net_saving_usd), r: 3, class: p.fire ? "pt" : "pt neg" };
      nodes.push(el("circle", { ...attrs, "data-x": p.x, "data-net": p.net_saving_usd, "data-fire": p.fire, "data-reason": p.reason_code }));
    }
    if (spec.breakEven !== null && spec.breakEven >= xMin && spec.breakEven <= xMax) {
      const bx = sx(spec.breakEven);
      const g = el("g", { "data-testid": "break-even", "data-x": spec.breakEven });
      g.append(
        el("line", { x1: bx, x2: bx, y1: T, y2: H - B, class: "be-line" }),
        el("circle", { cx: bx, cy: sy(0), r: 6, class: "be-dot" }),
      );
      const right = bx < (L + W - R) / 2;
      g.append(el("text", { x: right ? bx + 8 : bx - 8, y: T + 32, "text-anchor": right ? "start" : "end", class: "be-label" }, spec.beLabel));
      g.append(el("title", {}, spec.beLabel));
      nodes.push(g);
    } else {
      svg.setAttribute("data-no-break-even", "true");
    }
    if (spec.here) {
      const { x, net_saving_usd: net } = spec.here;
      const here = el("circle", { cx: sx(x), cy: sy(net), r: 7, class: "here", "data-testid": "here", "data-x": x, "data-net": net });
      here.append(el("title", {}, `this decision: ${spec.fmtX(x)} → ${usd(net)}`));
      nodes.push(here);
    }
    svg.replaceChildren(...nodes);
  }

  /** Both charts: the API's curves, with the decision's own point and break-evens marked. */
  function drawCurves(decision, curve) {
    const inputs = decision.inputs;
    const hSvg = $("chart-horizon"), tSvg = $("chart-tokens");
    hSvg.removeAttribute("data-no-break-even");
    tSvg.removeAttribute("data-no-break-even");
    $("chart-model").textContent = curve.priced_as ? curve.priced_as.model : inputs.model_name;
    if (!curve.priced_as) {
      const unavailable = curve.output_tokens.some((p) => p.reason_code === "pricing_unavailable");
      emptyChart(hSvg, unavailable ? `Pricing for ${inputs.model_name} is unavailable: nothing to chart.` : `No pricing row for ${inputs.model_name}: nothing to chart.`);
      emptyChart(tSvg, unavailable ? "The gate does not fire until it can read pricing." : "Add a row to see where the gate flips.");
      return;
    }
    const at = (points, x) => points.find((p) => p.x === x);
    const beH = decision.break_even_horizon;
    drawChart(hSvg, {
      points: curve.horizon,
      here: at(curve.horizon, inputs.horizon),
      breakEven: beH,
      beLabel: beH === null ? "" : `fires from H = ${beH}`,
      xLabel: `horizon H (turns), ${shortNum(inputs.output_tokens)} output tokens`,
      fmtX: plain,
      prefilter: null,
    });
    const beT = decision.break_even_output_tokens;
    drawChart(tSvg, {
      points: curve.output_tokens,
      here: at(curve.output_tokens, inputs.output_tokens),
      breakEven: beT,
      beLabel: beT === null ? "" : `fires from ${shortNum(beT)} tokens`,
      xLabel: `output tokens, H = ${inputs.horizon}`,
      fmtX: shortNum,
      prefilter: inputs.large_offload_threshold_tokens,
    });
  }

  function curvesFailed(message) {
    emptyChart($("chart-horizon"), message);
    emptyChart($("chart-tokens"), "");
  }

  // ------------------------------------------------------------- calculator
  const form = $("calc-form");
  const optionalNumber = (id) => {
    const input = $(id);
    if (input.value.trim() === "") return undefined;
    return Number(input.value);
  };

  // Calculator fields sent when filled in, blank leaving the gate its prior.
  const OPTIONAL_FIELDS = {
    horizon: "f-horizon",
    recall_probability: "f-recall",
    large_offload_threshold_tokens: "f-large_offload_threshold_tokens",
    stub_tokens: "f-stub_tokens",
    recall_input_tokens: "f-recall_input_tokens",
    recall_output_tokens: "f-recall_output_tokens",
  };
  const CACHE_AWARE_FIELDS = { cache_hit_rate: "f-cache-hit", context_tokens: "f-context" };
  // Ranges are sent when either end is filled; a missing end goes as null, so the API names it.
  const RANGES = { horizon_range: ["f-h-lo", "f-h-hi"], recall_probability_range: ["f-p-lo", "f-p-hi"] };
  const CACHE_AWARE_RANGES = { cache_hit_rate_range: ["f-q-lo", "f-q-hi"] };

  function requestBody() {
    const body = { model_name: $("f-model").value.trim() };
    body[$("f-unit").value === "chars" ? "output_chars" : "output_tokens"] = optionalNumber("f-size");
    const mode = $("f-mode").value;
    body.pricing_mode = mode;
    const fields = mode === "cache_aware" ? { ...OPTIONAL_FIELDS, ...CACHE_AWARE_FIELDS } : OPTIONAL_FIELDS;
    for (const [name, id] of Object.entries(fields)) {
      const value = optionalNumber(id);
      if (value !== undefined) body[name] = value;
    }
    if (mode === "cache_aware") {
      body.offload_at = $("f-offload").value;
      body.cache_ttl = $("f-ttl").value;
      const suffix = optionalNumber("f-suffix");
      if (body.offload_at === "retroactive" && suffix !== undefined) body.suffix_tokens = suffix;
    }
    const ranges = mode === "cache_aware" ? { ...RANGES, ...CACHE_AWARE_RANGES } : RANGES;
    for (const [name, [lo, hi]] of Object.entries(ranges)) {
      const [from, to] = [optionalNumber(lo), optionalNumber(hi)];
      if (from !== undefined || to !== undefined) body[name] = [from ?? null, to ?? null];
    }
    return body;
  }

  // The answer's terms in the order they add up to net_saving_usd; the
  // premium only exists in cache_aware mode.
  const TERMS = [
    ["reprefill_saving_usd", "+ Re-prefill saving"],
    ["context_premium_saving_usd", "+ Long-context premium avoided", "cache_aware"],
    ["stub_carry_cost_usd", "− Stub carry cost"],
    ["expected_recall_hop_cost_usd", "− Expected recall hop cost"],
    ["suffix_rewrite_cost_usd", "− Suffix rewrite cost", "cache_aware"],
  ];
  const BREAK_EVENS = [
    ["break_even_horizon", "Fires from horizon"],
    ["break_even_output_tokens", "Fires from output tokens"],
  ];

  function showDecision(d) {
    const decision = $("decision");
    decision.className = `decision ${d.fire ? "fire" : "hold"}`;
    decision.textContent = d.fire
      ? `Fire — stub it: saves ${usd(d.net_saving_usd)} (${d.reason_code})`
      : `Don't fire — keep the output (${d.reason_code})`;
    $("reason").textContent = d.reason;
    const row = (key, label, value, cls) => {
      const tr = document.createElement("tr");
      if (cls) tr.className = cls;
      const th = document.createElement("th");
      th.scope = "row";
      th.textContent = label;
      const td = document.createElement("td");
      td.textContent = value;
      td.dataset.term = key;
      tr.append(th, td);
      return tr;
    };
    const rows = TERMS.filter(([, , mode]) => !mode || mode === d.pricing_mode).map(([key, label]) => row(key, label, usd(d[key])));
    const net = row("net_saving_usd", "= Net saving", usd(d.net_saving_usd), "net");
    net.lastChild.classList.add(d.net_saving_usd > 0 ? "pos" : "neg");
    rows.push(net);
    for (const [key, label] of BREAK_EVENS) rows.push(row(key, label, d[key] === null ? "none" : plain(d[key])));
    const w = d.worst_case;
    if (w) {
      const corner = `H ${w.horizon} · p_recall ${w.recall_probability}${w.cache_hit_rate === null ? "" : ` · q ${w.cache_hit_rate}`}`;
      const worst = row("worst_case", "Worst corner of the ranges", `${usd(w.net_saving_usd)} at ${corner}`);
      worst.lastChild.classList.add(w.net_saving_usd > 0 ? "pos" : "neg");
      rows.push(worst);
    }
    $("terms").tBodies[0].replaceChildren(...rows);

    const i = d.inputs;
    const context = [
      ["Priced as", d.priced_as ? `${d.priced_as.model} · $${d.priced_as.input} in / $${d.priced_as.output} out per M tokens` : "no pricing row"],
      ["Resolved inputs", `${plain(i.output_tokens)} output tokens · H ${i.horizon} · p_recall ${i.recall_probability} · threshold ${plain(i.large_offload_threshold_tokens)} · stub ${i.stub_tokens} · recall ${plain(i.recall_input_tokens)} in / ${plain(i.recall_output_tokens)} out`],
      [
        "Pricing mode",
        d.pricing_mode === "cache_aware"
          ? `cache_aware · q ${i.cache_hit_rate} · context ${plain(i.context_tokens)} tokens · ${i.offload_at}` +
            (i.offload_at === "retroactive" ? ` with ${plain(i.suffix_tokens)} cached tokens after it` : "") +
            ` · ${i.cache_ttl} cache`
          : d.pricing_mode,
      ],
    ];
    const life = d.lifecycle;
    if (life) {
      const when = life.status === "retired" ? `retired ${life.retires_at}` : life.retires_at ? `deprecated, retires ${life.retires_at}` : `deprecated since ${life.deprecated_at}`;
      const how = life.priced_as_replacement ? `; priced as its replacement (${life.chain.join(" → ")})` : life.replaced_by ? `; replaced by ${life.replaced_by}` : "";
      context.push(["Lifecycle", `${life.model} ${when}${how}`]);
    }
    $("decision-context").replaceChildren(
      ...context.flatMap(([term, detail]) => {
        const dt = document.createElement("dt");
        dt.textContent = term;
        const dd = document.createElement("dd");
        dd.textContent = detail;
        return [dt, dd];
      }),
    );
    const calc = $("calc-status");
    if (d.stale_pricing) status(calc, `Stale pricing: ${d.stale_pricing.detail} (${plain(d.stale_pricing.age_seconds)} s old).`, "error");
    else status(calc, "", "");
  }

  async function ask(event) {
    if (event) event.preventDefault();
    const button = $("calc-submit");
    const calc = $("calc-status");
    button.disabled = true;
    status(calc, "Asking the gate…", "");
    try {
      const body = requestBody();
      // A dry run: looking at the console never writes into the ledger (docs/console.md).
      const [gate, curve] = await Promise.all([postGateRoute("/v1/gate", { ...body, dry_run: true }), postGateRoute("/v1/gate/curve", { request: body })]);
      if (gate.res.status === 401) {
        status(calc, `The gate wants a key: enter one under More inputs — ${describeError(gate.body, gate.res)}`, "error");
        return;
      }
      if (!gate.res.ok) {
        status(calc, `The gate refused the request — ${describeError(gate.body, gate.res)}`, "error");
        return;
      }
      showDecision(gate.body);
      if (curve.res.ok) drawCurves(gate.body, curve.body);
      else curvesFailed(`No curves — ${describeError(curve.body, curve.res)}`);
    } catch (error) {
      status(calc, `Could not reach the gate: ${error.message}`, "error");
    } finally {
      button.disabled = false;
    }
  }

  form.addEventListener("submit", ask);
  const mode = $("f-mode");
  const syncMode = () => ($("cache-fields").hidden = mode.value !== "cache_aware");
  mode.addEventListener("change", syncMode);
  syncMode();
  // suffix_tokens only means something for a retroactive stub; the API refuses it otherwise.
  const offload = $("f-offload");
  const syncOffload = () => ($("f-suffix").disabled = offload.value !== "retroactive");
  offload.addEventListener("change", syncOffload);
  syncOffload();
  $("f-unit").addEventListener("change", (e) => ($("f-size").step = e.target.value === "chars" ? "1" : "any"));

  // ---------------------------------------------------------------- editing
  const dialog = $("edit-dialog");
  let opener = null;

  function setEditable(on) {
    for (const button of document.querySelectorAll("button.edit, #add-row, button.pending-action")) button.hidden = !on;
  }

  $("admin-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const note = $("admin-status");
    const token = $("admin-token").value.trim();
    adminToken = null;
    setEditable(false);
    if (token === "") return status(note, "Read-only.", "");
    status(note, "Checking the token…", "");
    try {
      const res = await fetch("/v1/admin/pricing", { headers: { authorization: `Bearer ${token}` } });
      if (res.status === 401 || res.status === 403) return status(note, "The admin API refused this token.", "error");
      if (!res.ok) return status(note, `The admin API answered HTTP ${res.status}.`, "error");
      adminToken = token;
      setEditable(true);
      status(note, "Editing enabled. The token stays in this tab's memory only.", "ok");
    } catch (error) {
      status(note, `Could not reach the admin API: ${error.message}`, "error");
    }
  });

  // An invalid row is shown as stored, indented when it is at least JSON.
  function prettyOrRaw(text) {
    try {
      return JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      return text;
    }
  }

  function openEditor(model, button) {
    opener = button;
    const known = model !== null && Object.prototype.hasOwnProperty.call(data.rows, model);
    const row = known ? data.rows[model] : { input: 0, output: 0, provider: "", verified_at: new Date().toISOString().slice(0, 10) };
    $("edit-model").value = model || "";
    $("edit-model").readOnly = model !== null;
    $("edit-json").value = typeof row === "string" ? prettyOrRaw(row) : JSON.stringify(row, null, 2);
    $("edit-h").textContent = model === null ? "Add a pricing row" : `Edit ${model}`;
    status($("edit-status"), "", "");
    dialog.showModal();
    (model === null ? $("edit-model") : $("edit-json")).focus();
  }

  $("pricing").addEventListener("click", (event) => {
    const button = event.target.closest("button.edit, #add-row");
    if (!button || !adminToken) return;
    openEditor(button.id === "add-row" ? null : button.dataset.edit, button);
  });
  $("edit-cancel").addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => opener && opener.isConnected && opener.focus());

  async function refreshTable() {
    const res = await fetch("/", { cache: "no-store" });
    // The fresh page's <style> carries another request's nonce: leave it out
    // rather than have CSP report it while parsing.
    const html = (await res.text()).replace(/<style[^>]*>[\s\S]*?<\/style>/, "");
    const doc = new DOMParser().parseFromString(html, "text/html");
    for (const selector of ["#pricing .table-scroll", "#pricing .summary", "#model-list", "#pending"]) {
      const fresh = doc.querySelector(selector);
      const old = document.querySelector(selector);
      if (fresh && old) old.replaceWith(document.importNode(fresh, true));
    }
    data = JSON.parse(doc.getElementById("console-data").textContent);
    setEditable(adminToken !== null);
  }

  // Approve or reject one of the price sync's proposals; the section is
  // replaced on refresh, so the listener sits on the document.
  document.addEventListener("click", async (event) => {
    const button = event.target.closest && event.target.closest("button.pending-action");
    if (!button || !adminToken) return;
    // The digest of the change this page shows: the API refuses (409) if the sync has replaced it since.
    const { decide, model, digest } = button.dataset;
    const note = () => $("pending-status");
    status(note(), `${decide === "approve" ? "Approving" : "Rejecting"} ${model}…`, "");
    try {
      const res = await fetch(`/v1/admin/pending/${encodeURIComponent(model)}/${decide}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${adminToken}` },
        body: JSON.stringify({ digest }),
      });
      const body = await res.json().catch(() => null);
      if (!res.ok) return status(note(), `Not ${decide === "approve" ? "approved" : "rejected"}: ${describeError(body, res)}`, "error");
      await refreshTable();
      status(note(), `${decide === "approve" ? "Approved" : "Rejected"} ${model}.`, "ok");
    } catch (error) {
      status(note(), `Could not reach the admin API: ${error.message}`, "error");
    }
  });

  $("edit-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const note = $("edit-status");
    const model = $("edit-model").value.trim();
    let row;
    try {
      row = JSON.parse($("edit-json").value);
    } catch (error) {
      return status(note, `The row is not valid JSON: ${error.message}`, "error");
    }
    if (model === "") return status(note, "Name the model.", "error");
    status(note, "Saving…", "");
    try {
      const res = await fetch(`/v1/admin/pricing/${encodeURIComponent(model)}`, {
        method: "PUT",
        headers: { "content-type": "application/json", authorization: `Bearer ${adminToken}` },
        body: JSON.stringify(row),
      });
      const body = await res.json().catch(() => null);
      if (!res.ok) return status(note, `Not saved — ${describeError(body, res)}`, "error");
      const warnings = body && Array.isArray(body.warnings) && body.warnings.length > 0 ? ` Warnings: ${body.warnings.map((w) => (typeof w === "string" ? w : w.message || JSON.stringify(w))).join("; ")}` : "";
      dialog.close();
      await refreshTable();
      status($("admin-status"), `Saved ${model}.${warnings}`, warnings ? "warn" : "ok");
    } catch (error) {
      status(note, `Could not save: ${error.message}`, "error");
    }
  });

  ask();
})();
