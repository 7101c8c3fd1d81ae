// The ops console's only script, inlined with a CSP nonce. Plain browser
// JavaScript with no build step: it asks POST /v1/gate, draws the curves,
// and (with an admin token) edits rows through PUT /v1/admin/pricing/:model.
(() => {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";
  const PER_MILLION = 1e6;
  let data = JSON.parse($("console-data").textContent);
  let adminToken = null;

  // ---------------------------------------------------------------- numbers
  const usd = (n, digits = 6) =>
    (n < 0 ? "−$" : "$") + Math.abs(n).toLocaleString("en-US", { minimumFractionDigits: 4, maximumFractionDigits: digits });
  const plain = (n) => n.toLocaleString("en-US", { maximumFractionDigits: 2 });

  // The seed-mode core (src/gate/decision.ts), operation for operation, so a
  // point drawn at the decision's inputs equals the gate's net_saving_usd.
  function seedNet(prices, inputs, horizon, outputTokens) {
    const inputRate = prices.input / PER_MILLION;
    const outputRate = prices.output / PER_MILLION;
    const h = Math.max(0, Math.trunc(horizon));
    const p = Math.max(0, Math.min(1, inputs.recall_probability));
    const reprefill = outputTokens * inputRate * h;
    const stub = inputs.stub_tokens * inputRate * h;
    const recall = p * (inputs.recall_input_tokens * inputRate + inputs.recall_output_tokens * outputRate);
    return reprefill - (stub + recall);
  }

  function recallCost(prices, inputs) {
    const p = Math.max(0, Math.min(1, inputs.recall_probability));
    return p * ((inputs.recall_input_tokens * prices.input) / PER_MILLION + (inputs.recall_output_tokens * prices.output) / PER_MILLION);
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

  const shortUsd = (v) => {
    const a = Math.abs(v);
    const s = a === 0 ? "0" : a >= 1 ? a.toFixed(2) : a >= 0.01 ? a.toFixed(3) : a.toPrecision(2);
    return (v < 0 ? "−$" : "$") + s;
  };
  const shortNum = (v) => (Math.abs(v) >= 1e6 ? `${plain(v / 1e6)}M` : Math.abs(v) >= 1e3 ? `${plain(v / 1e3)}k` : plain(v));

  // ------------------------------------------------------------------ chart
  function el(name, attrs, text) {
    const node = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function emptyChart(svg, message) {
    svg.replaceChildren(el("text", { x: 280, y: 150, "text-anchor": "middle", class: "empty" }, message));
  }

  // spec: { points: [{x, y}], here: {x, y}, breakEven: number|null, xLabel, fmtX, prefilter: number|null, beLabel }
  function drawChart(svg, spec) {
    const W = 560, H = 300, L = 72, R = 18, T = 16, B = 46;
    const xs = spec.points.map((p) => p.x);
    const ys = spec.points.map((p) => p.y).concat([0, spec.here.y]);
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

    nodes.push(el("polyline", { class: "curve", points: spec.points.map((p) => `${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`).join(" ") }));
    for (const p of spec.points) {
      nodes.push(el("circle", { cx: sx(p.x), cy: sy(p.y), r: 3, class: p.y > 0 ? "pt" : "pt neg", "data-x": p.x, "data-net": p.y }));
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
    }
    const here = el("circle", { cx: sx(spec.here.x), cy: sy(spec.here.y), r: 7, class: "here", "data-testid": "here", "data-x": spec.here.x, "data-net": spec.here.y });
    here.append(el("title", {}, `this decision: ${spec.fmtX(spec.here.x)} → ${usd(spec.here.y)}`));
    nodes.push(here);
    svg.replaceChildren(...nodes);
  }

  function pricesFor(decision) {
    const p = decision.priced_as;
    if (p && typeof p.input === "number" && typeof p.output === "number") return { model: p.model, input: p.input, output: p.output };
    const name = decision.inputs.model_name;
    const canonical = data.aliases[name] || name;
    const row = data.prices[canonical];
    return row ? { model: canonical, input: row.input, output: row.output } : null;
  }

  function drawCharts(decision) {
    const inputs = decision.inputs;
    const prices = pricesFor(decision);
    $("chart-model").textContent = prices ? prices.model : inputs.model_name;
    const hSvg = $("chart-horizon"), tSvg = $("chart-tokens");
    if (!prices) {
      emptyChart(hSvg, `No pricing row for ${inputs.model_name}: nothing to chart.`);
      emptyChart(tSvg, "Add a row to see where the gate flips.");
      return;
    }
    const T = inputs.output_tokens, Hz = inputs.horizon;
    const recall = recallCost(prices, inputs);
    const perTurn = ((T - inputs.stub_tokens) * prices.input) / PER_MILLION;

    // Net against horizon: linear in H, crossing zero at recall / per-turn saving.
    const hBreak = perTurn > 0 ? recall / perTurn : null;
    const hMax = Math.min(400, Math.max(8, 2 * Hz, hBreak === null ? 0 : Math.ceil(hBreak * 1.5) + 1));
    const hStep = Math.max(1, Math.ceil(hMax / 60));
    const hPoints = [];
    for (let h = 0; h <= hMax; h += hStep) hPoints.push({ x: h, y: seedNet(prices, inputs, h, T) });
    drawChart(hSvg, {
      points: hPoints,
      here: { x: Hz, y: seedNet(prices, inputs, Hz, T) },
      breakEven: hBreak,
      xLabel: `horizon H (turns), ${shortNum(T)} output tokens`,
      fmtX: (v) => plain(v),
      prefilter: null,
      beLabel: hBreak === null ? "" : `break-even H ≈ ${plain(hBreak)} (fires from H = ${Math.floor(hBreak) + 1})`,
    });
    if (hBreak === null || hBreak > hMax) hSvg.setAttribute("data-no-break-even", "true");

    // Net against output size at this horizon: crossing at stub + recall / (rate × H).
    const h = Math.max(0, Math.trunc(Hz));
    const tBreak = h > 0 && prices.input > 0 ? inputs.stub_tokens + recall / ((prices.input / PER_MILLION) * h) : null;
    const threshold = inputs.large_offload_threshold_tokens;
    const tMax = Math.max(1000, 2 * T, 1.2 * threshold, tBreak === null ? 0 : 1.5 * tBreak);
    const tPoints = [];
    for (let i = 0; i <= 40; i++) {
      const t = Math.round((tMax * i) / 40);
      tPoints.push({ x: t, y: seedNet(prices, inputs, Hz, t) });
    }
    const below = tBreak !== null && tBreak < threshold ? " — under the pre-filter" : "";
    drawChart(tSvg, {
      points: tPoints,
      here: { x: T, y: seedNet(prices, inputs, Hz, T) },
      breakEven: tBreak,
      xLabel: `output tokens, H = ${h}`,
      fmtX: shortNum,
      prefilter: threshold,
      beLabel: tBreak === null ? "" : `break-even ≈ ${shortNum(Math.round(tBreak))} tokens${below}`,
    });
  }

  // ------------------------------------------------------------- calculator
  const form = $("calc-form");
  const status = (node, message, kind) => {
    node.textContent = message;
    node.className = `status${kind ? ` ${kind}` : ""}`;
  };
  const optionalNumber = (id) => {
    const input = $(id);
    if (!input || input.value.trim() === "") return undefined;
    return Number(input.value);
  };

  function requestBody() {
    const body = { model_name: $("f-model").value.trim() };
    const size = optionalNumber("f-size");
    body[$("f-unit").value === "chars" ? "output_chars" : "output_tokens"] = size;
    const fields = {
      horizon: "f-horizon",
      recall_probability: "f-recall",
      large_offload_threshold_tokens: "f-large_offload_threshold_tokens",
      stub_tokens: "f-stub_tokens",
      recall_input_tokens: "f-recall_input_tokens",
      recall_output_tokens: "f-recall_output_tokens",
    };
    for (const [name, id] of Object.entries(fields)) {
      const value = optionalNumber(id);
      if (value !== undefined) body[name] = value;
    }
    const mode = $("f-mode");
    if (mode) {
      body.pricing_mode = mode.value;
      if (mode.value === "cache_aware") {
        for (const [name, id] of [["cache_hit_rate", "f-cache-hit"], ["context_tokens", "f-context"]]) {
          const value = optionalNumber(id);
          if (value !== undefined) body[name] = value;
        }
      }
    }
    return body;
  }

  const TERMS = [
    ["reprefill_saving_usd", "Re-prefill saving", 1],
    ["stub_carry_cost_usd", "Stub carry cost", -1],
    ["expected_recall_hop_cost_usd", "Expected recall hop cost", -1],
  ];

  // Friendlier names for fields the gate answers with; others show as named.
  const LABELS = {
    context_premium_saving_usd: "+ Long-context premium avoided",
    break_even_horizon: "Fires from horizon",
    break_even_output_tokens: "Fires from output tokens",
  };

  function showDecision(d) {
    const decision = $("decision");
    decision.className = `decision ${d.fire ? "fire" : "hold"}`;
    decision.textContent = d.fire
      ? `Fire — stub it: saves ${usd(d.net_saving_usd, 4)} (${d.reason_code})`
      : `Don't fire — keep the output (${d.reason_code})`;
    $("reason").textContent = d.reason;
    const rows = [];
    const row = (label, value, cls) => {
      const tr = document.createElement("tr");
      if (cls) tr.className = cls;
      const th = document.createElement("th");
      th.scope = "row";
      th.textContent = label;
      const td = document.createElement("td");
      td.textContent = value;
      tr.append(th, td);
      rows.push(tr);
      return td;
    };
    const known = new Set(["net_saving_usd"]);
    for (const [key, label, sign] of TERMS) {
      known.add(key);
      row(`${sign > 0 ? "+" : "−"} ${label}`, usd(d[key])).dataset.term = key;
    }
    // Terms the gate adds later (cache-aware pricing) are shown as they come.
    for (const [key, value] of Object.entries(d)) {
      const isBreakEven = key.startsWith("break_even_");
      if (known.has(key) || (typeof value !== "number" && !(isBreakEven && value === null))) continue;
      const label = LABELS[key] || key.replace(/_usd$/, "").replace(/_/g, " ");
      const text = value === null ? "none" : key.endsWith("_usd") ? usd(value) : plain(value);
      row(label, text).dataset.term = key;
    }
    const net = row("= Net saving", usd(d.net_saving_usd), "net");
    net.dataset.term = "net_saving_usd";
    net.classList.add(d.net_saving_usd > 0 ? "pos" : "neg");
    $("terms").tBodies[0].replaceChildren(...rows);
    const i = d.inputs;
    const context = [
      ["Priced as", d.priced_as ? `${d.priced_as.model} · $${d.priced_as.input} in / $${d.priced_as.output} out per M tokens` : "no pricing row"],
      ["Resolved inputs", `${plain(i.output_tokens)} output tokens · H ${i.horizon} · p_recall ${i.recall_probability} · threshold ${plain(i.large_offload_threshold_tokens)} · stub ${i.stub_tokens} · recall ${plain(i.recall_input_tokens)} in / ${plain(i.recall_output_tokens)} out`],
    ];
    if (d.pricing_mode) context.push(["Pricing mode", d.pricing_mode]);
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
    else if (d.pricing_mode && d.pricing_mode !== "seed") status(calc, "The curves use the seed formula; this decision was priced cache-aware.", "");
    else status(calc, "", "");
  }

  function describeError(body, res) {
    const error = body && body.error;
    if (!error) return `HTTP ${res.status}`;
    const issues = (error.issues || []).map((issue) => `${issue.path || "body"}: ${issue.message}`).join("; ");
    return `${error.code}: ${issues || error.message}`;
  }

  async function ask(event) {
    if (event) event.preventDefault();
    const button = $("calc-submit");
    const calc = $("calc-status");
    button.disabled = true;
    status(calc, "Asking the gate…", "");
    try {
      const headers = { "content-type": "application/json" };
      const key = $("f-gate-key").value.trim();
      if (key !== "") headers.authorization = `Bearer ${key}`;
      const res = await fetch("/v1/gate", { method: "POST", headers, body: JSON.stringify(requestBody()) });
      const body = await res.json().catch(() => null);
      if (res.status === 401) {
        status(calc, `The gate wants a key: enter one under More inputs — ${describeError(body, res)}`, "error");
        return;
      }
      if (!res.ok) {
        status(calc, `The gate refused the request — ${describeError(body, res)}`, "error");
        return;
      }
      showDecision(body);
      drawCharts(body);
    } catch (error) {
      status(calc, `Could not reach the gate: ${error.message}`, "error");
    } finally {
      button.disabled = false;
    }
  }

  form.addEventListener("submit", ask);
  const mode = $("f-mode");
  if (mode && $("cache-fields")) {
    const sync = () => ($("cache-fields").hidden = mode.value !== "cache_aware");
    mode.addEventListener("change", sync);
    sync();
  }
  $("f-unit").addEventListener("change", (e) => ($("f-size").step = e.target.value === "chars" ? "1" : "any"));

  // ---------------------------------------------------------------- editing
  const dialog = $("edit-dialog");
  let opener = null;

  function setEditable(on) {
    for (const button of document.querySelectorAll("button.edit, #add-row")) button.hidden = !on;
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
      if (res.status === 404) return status(note, "This deployment has no admin API: the table stays read-only.", "error");
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
    for (const selector of ["#pricing .table-scroll", "#pricing .summary", "#model-list"]) {
      const fresh = doc.querySelector(selector);
      const old = document.querySelector(selector);
      if (fresh && old) old.replaceWith(document.importNode(fresh, true));
    }
    data = JSON.parse(doc.getElementById("console-data").textContent);
    setEditable(adminToken !== null);
  }

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
