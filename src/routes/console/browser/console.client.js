// The ops console's calculator. Plain browser JavaScript with no build step,
// inlined with a CSP nonce after shared.client.js and charts.client.js. It
// computes no economics: the decision comes from POST /v1/gate as a dry run,
// the curves from POST /v1/gate/curve (the worker's core, nothing recorded by
// either). Editing is editing.client.js.

(() => {
  "use strict";
  const { byId, control, usd, setStatus: status, gateHeaders, describeError, messageOf } = consoleKit;
  const { drawCurves, curvesFailed, plain } = consoleCharts;

  /**
   * POSTs JSON to a gate route with the gate key, if one is given: { res, body } (body null when not JSON).
   * @param {string} path
   * @param {unknown} payload
   * @returns {Promise<{ res: Response, body: any }>}
   */
  async function postGateRoute(path, payload) {
    const headers = gateHeaders({ "content-type": "application/json" });
    const res = await fetch(path, { method: "POST", headers, body: JSON.stringify(payload) });
    return { res, body: await res.json().catch(() => null) };
  }

  const form = byId("calc-form", HTMLFormElement);
  /** @param {string} id */
  const optionalNumber = (id) => {
    const input = control(id);
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

  /** The gate request the form describes; the gate itself checks every field. */
  function requestBody() {
    /** @type {Record<string, unknown>} */
    const body = { model_name: control("f-model").value.trim() };
    body[control("f-unit").value === "chars" ? "output_chars" : "output_tokens"] = optionalNumber("f-size");
    const mode = control("f-mode").value;
    body.pricing_mode = mode;
    /** @type {Record<string, string>} */
    const fields = mode === "cache_aware" ? { ...OPTIONAL_FIELDS, ...CACHE_AWARE_FIELDS } : OPTIONAL_FIELDS;
    for (const [name, id] of Object.entries(fields)) {
      const value = optionalNumber(id);
      if (value !== undefined) body[name] = value;
    }
    if (mode === "cache_aware") {
      body.offload_at = control("f-offload").value;
      body.cache_ttl = control("f-ttl").value;
      const suffix = optionalNumber("f-suffix");
      if (body.offload_at === "retroactive" && suffix !== undefined) body.suffix_tokens = suffix;
    }
    /** @type {Record<string, string[]>} */
    const ranges = mode === "cache_aware" ? { ...RANGES, ...CACHE_AWARE_RANGES } : RANGES;
    for (const [name, [lo, hi]] of Object.entries(ranges)) {
      const [from, to] = [optionalNumber(String(lo)), optionalNumber(String(hi))];
      if (from !== undefined || to !== undefined) body[name] = [from ?? null, to ?? null];
    }
    return body;
  }

  // The answer's terms in the order they add up to net_saving_usd; the
  // premium only exists in cache_aware mode.
  /** @type {[keyof GateDecision, string, string?][]} */
  const TERMS = [
    ["reprefill_saving_usd", "+ Re-prefill saving"],
    ["context_premium_saving_usd", "+ Long-context premium avoided", "cache_aware"],
    ["stub_carry_cost_usd", "− Stub carry cost"],
    ["expected_recall_hop_cost_usd", "− Expected recall hop cost"],
    ["suffix_rewrite_cost_usd", "− Suffix rewrite cost", "cache_aware"],
  ];
  /** @type {["break_even_horizon" | "break_even_output_tokens", string][]} */
  const BREAK_EVENS = [
    ["break_even_horizon", "Fires from horizon"],
    ["break_even_output_tokens", "Fires from output tokens"],
  ];

  /** @param {GateDecision} d */
  function showDecision(d) {
    const decision = byId("decision");
    decision.className = `decision ${d.fire ? "fire" : "hold"}`;
    decision.textContent = d.fire
      ? `Fire — stub it: saves ${usd(d.net_saving_usd)} (${d.reason_code})`
      : `Don't fire — keep the output (${d.reason_code})`;
    byId("reason").textContent = d.reason;
    /** @param {string} key @param {string} label @param {string} value @param {string} [cls] */
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
      return { tr, td };
    };
    const rows = TERMS.filter(([, , mode]) => !mode || mode === d.pricing_mode).map(
      ([key, label]) => row(key, label, usd(/** @type {number} */ (d[key]))).tr,
    );
    const net = row("net_saving_usd", "= Net saving", usd(d.net_saving_usd), "net");
    net.td.classList.add(d.net_saving_usd > 0 ? "pos" : "neg");
    rows.push(net.tr);
    for (const [key, label] of BREAK_EVENS) {
      const value = d[key];
      rows.push(row(key, label, value === null ? "none" : plain(value)).tr);
    }
    const w = d.worst_case;
    if (w) {
      const corner = `H ${w.horizon} · p_recall ${w.recall_probability}${w.cache_hit_rate === null ? "" : ` · q ${w.cache_hit_rate}`}`;
      const worst = row("worst_case", "Worst corner of the ranges", `${usd(w.net_saving_usd)} at ${corner}`);
      worst.td.classList.add(w.net_saving_usd > 0 ? "pos" : "neg");
      rows.push(worst.tr);
    }
    byId("terms", HTMLTableElement).tBodies[0]?.replaceChildren(...rows);

    const i = d.inputs;
    const context = [
      [
        "Priced as",
        d.priced_as
          ? `${d.priced_as.model} · $${d.priced_as.input} in / $${d.priced_as.output} out per M tokens`
          : "no pricing row",
      ],
      [
        "Resolved inputs",
        `${plain(i.output_tokens)} output tokens · H ${i.horizon} · p_recall ${i.recall_probability} · threshold ${plain(i.large_offload_threshold_tokens)} · stub ${i.stub_tokens} · recall ${plain(i.recall_input_tokens)} in / ${plain(i.recall_output_tokens)} out`,
      ],
      [
        "Pricing mode",
        d.pricing_mode === "cache_aware"
          ? `cache_aware · q ${i.cache_hit_rate} · context ${plain(i.context_tokens ?? 0)} tokens · ${i.offload_at}` +
            (i.offload_at === "retroactive" ? ` with ${plain(i.suffix_tokens ?? 0)} cached tokens after it` : "") +
            ` · ${i.cache_ttl} cache`
          : d.pricing_mode,
      ],
    ];
    const life = d.lifecycle;
    if (life) {
      const when =
        life.status === "retired"
          ? `retired ${life.retires_at}`
          : life.retires_at
            ? `deprecated, retires ${life.retires_at}`
            : `deprecated since ${life.deprecated_at}`;
      const how = life.priced_as_replacement
        ? `; priced as its replacement (${life.chain.join(" → ")})`
        : life.replaced_by
          ? `; replaced by ${life.replaced_by}`
          : "";
      context.push(["Lifecycle", `${life.model} ${when}${how}`]);
    }
    byId("decision-context").replaceChildren(
      ...context.flatMap(([term, detail]) => {
        const dt = document.createElement("dt");
        dt.textContent = term ?? "";
        const dd = document.createElement("dd");
        dd.textContent = detail ?? "";
        return [dt, dd];
      }),
    );
    const calc = byId("calc-status");
    if (d.stale_pricing)
      status(calc, `Stale pricing: ${d.stale_pricing.detail} (${plain(d.stale_pricing.age_seconds)} s old).`, "error");
    else status(calc, "", "");
  }

  /** @param {Event} [event] */
  async function ask(event) {
    if (event) event.preventDefault();
    const button = byId("calc-submit", HTMLButtonElement);
    const calc = byId("calc-status");
    button.disabled = true;
    status(calc, "Asking the gate…", "");
    try {
      const body = requestBody();
      // A dry run: looking at the console never writes into the ledger (docs/console.md).
      const [gate, curve] = await Promise.all([
        postGateRoute("/v1/gate", { ...body, dry_run: true }),
        postGateRoute("/v1/gate/curve", { request: body }),
      ]);
      if (gate.res.status === 401) {
        status(
          calc,
          `The gate wants a key: enter one under More inputs — ${describeError(gate.body, gate.res)}`,
          "error",
        );
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
      status(calc, `Could not reach the gate: ${messageOf(error)}`, "error");
    } finally {
      button.disabled = false;
    }
  }

  form.addEventListener("submit", ask);
  const mode = control("f-mode");
  const syncMode = () => (byId("cache-fields").hidden = mode.value !== "cache_aware");
  mode.addEventListener("change", syncMode);
  syncMode();
  // suffix_tokens only means something for a retroactive stub; the API refuses it otherwise.
  const offload = control("f-offload");
  const syncOffload = () => (control("f-suffix").disabled = offload.value !== "retroactive");
  offload.addEventListener("change", syncOffload);
  syncOffload();
  const unit = control("f-unit");
  unit.addEventListener("change", () => (byId("f-size", HTMLInputElement).step = unit.value === "chars" ? "1" : "any"));

  ask();
})();
