// The console's learning panel. Plain browser JavaScript with no build step,
// inlined with the page's CSP nonce after shared.client.js: it reads
// GET /v1/learning (same origin) and shows what the learner published; the
// breaker switch calls PUT /v1/admin/learning/breakers/:tenant with the
// admin token typed above, and a tool's flagged reporting (docs/learning.md
// § Reporting that can be trusted) is shown with its acknowledgement, which
// calls PUT /v1/admin/learning/acks/:tenant.

(() => {
  "use strict";
  const { find, byId, num: fmt, setStatus, gateHeaders, messageOf } = consoleKit;
  const form = find("learning-form");
  if (!form) return;
  /** @type {string | null} */
  let tenant = null;

  /** @param {string} text @param {string} [kind] */
  const status = (text, kind) => setStatus(byId("learning-status"), text, kind);
  /** @param {unknown} body @param {Response} res */
  const errorMessage = (body, res) => {
    const error =
      body !== null && typeof body === "object"
        ? /** @type {{ error?: { message?: string } }} */ (body).error
        : undefined;
    return error ? error.message : `HTTP ${res.status}`;
  };
  /** @param {string} text @param {string} [cls] */
  function cell(text, cls) {
    const td = document.createElement("td");
    td.textContent = text;
    if (cls) td.className = cls;
    return td;
  }
  // "0.754 [0.594 … 0.888] n=12 · config 0.25"
  /** @param {LearnedField} field @param {number} config */
  function prior(field, config) {
    if (field.source === "unverified")
      return cell(
        `unverified: reporting flagged, ${fmt(field.value)} (not learned) · config ${fmt(config)}`,
        "bad-text",
      );
    if (field.n === 0) return cell(`config ${fmt(config)}`);
    const range = field.range ? ` [${fmt(field.range[0])} … ${fmt(field.range[1])}]` : "";
    return cell(`${fmt(field.value)}${range} n=${field.n} · config ${fmt(config)}`);
  }
  /** @param {Breaker} b */
  function breakerText(b) {
    if (!b) return "closed (no evidence yet)";
    const e = b.evidence;
    const ev = e
      ? ` · ${e.verdict} over ${e.sessions} sessions${e.interval ? `, net saving per session [${fmt(e.interval[0], 4)} … ${fmt(e.interval[1], 4)}]` : ""}${e.adjusted ? `, ${e.adjusted} with a covariate (CUPED)` : ""}`
      : "";
    return `${b.state}${b.mode === "auto" ? "" : ` (forced ${b.mode})`} · ${b.rule} rule${ev}`;
  }
  // "reporting flagged: recalled_all (all 55 fired decisions … recalled) · acknowledged"
  /** @param {Trust} trust */
  function trustText(trust) {
    if (!trust) return "";
    const flags = trust.flags.map((f) => `${f.flag} (${f.detail})`).join("; ");
    return `reporting flagged: ${flags} · ${trust.acknowledged ? "acknowledged: p learned" : "not acknowledged: p not learned"}`;
  }
  /** @param {string} tool @param {Trust} trust */
  function ackButton(tool, trust) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "secondary ack-set";
    button.textContent = trust && trust.acknowledged ? "Withdraw ack" : "Acknowledge";
    button.dataset.tool = tool;
    button.addEventListener("click", () => setAck(tool, !(trust && trust.acknowledged)));
    return button;
  }
  /** @param {string} tool @param {boolean} acknowledged */
  async function setAck(tool, acknowledged) {
    const input = find("admin-token");
    const token = input instanceof HTMLInputElement ? input.value.trim() : "";
    if (token === "" || tenant === null) return status("Enter the admin token above to acknowledge.", "error");
    const res = await fetch(`/v1/admin/learning/acks/${encodeURIComponent(tenant)}`, {
      method: "PUT",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ tool_name: tool, acknowledged }),
    });
    const body = await res.json().catch(() => null);
    if (!res.ok) return status(`The admin API answered: ${errorMessage(body, res)}`, "error");
    await load();
    status(
      `${tool}'s reporting is ${acknowledged ? "acknowledged" : "no longer acknowledged"} (version ${body.version}, audited).`,
      "ok",
    );
  }
  /** @param {string} tool @param {Breaker} breaker */
  function switchFor(tool, breaker) {
    const td = document.createElement("td");
    const select = document.createElement("select");
    select.setAttribute("aria-label", `breaker of ${tool}`);
    for (const mode of ["auto", "open", "closed"]) {
      const option = document.createElement("option");
      option.value = mode;
      option.textContent = mode;
      if ((breaker ? breaker.mode : "auto") === mode) option.selected = true;
      select.append(option);
    }
    const button = document.createElement("button");
    button.type = "button";
    button.className = "secondary breaker-set";
    button.textContent = "Set";
    button.dataset.tool = tool;
    button.addEventListener("click", () => setBreaker(tool, select.value));
    td.append(select, button);
    return td;
  }
  /** @param {string} tool @param {string} state */
  async function setBreaker(tool, state) {
    const input = find("admin-token");
    const token = input instanceof HTMLInputElement ? input.value.trim() : "";
    if (token === "" || tenant === null) return status("Enter the admin token above to switch a breaker.", "error");
    status(`Setting ${tool}'s breaker to ${state}…`, "");
    const res = await fetch(`/v1/admin/learning/breakers/${encodeURIComponent(tenant)}`, {
      method: "PUT",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ tool_name: tool, state }),
    });
    const body = await res.json().catch(() => null);
    if (!res.ok) return status(`The admin API answered: ${errorMessage(body, res)}`, "error");
    await load();
    status(`${tool}'s breaker is ${state} (version ${body.version}, audited).`, "ok");
  }
  /** @param {LearningView} view */
  function render(view) {
    const tbody = byId("learning-table", HTMLTableElement).tBodies[0];
    if (tbody === undefined) return;
    tbody.replaceChildren();
    /** @param {string} label @param {LearningLevel} level @param {Breaker} breaker @param {string | null} tool @param {Trust} [trust] */
    const row = (label, level, breaker, tool, trust = null) => {
      const tr = document.createElement("tr");
      const th = document.createElement("th");
      th.scope = "row";
      th.textContent = label;
      tr.append(
        th,
        prior(level.priors.recall_probability, view.config.recall_probability),
        prior(level.priors.horizon, view.config.horizon),
        prior(level.priors.cache_hit_rate, view.config.cache_hit_rate),
      );
      tr.append(
        tool === null ? cell("") : cell(breakerText(breaker), breaker && breaker.state === "open" ? "bad-text" : ""),
      );
      tr.append(tool === null ? cell("") : switchFor(tool, breaker));
      tbody.append(tr);
      if (tool !== null && trust) {
        // The flags on a row of their own under the tool, with the acknowledgement.
        const flagged = document.createElement("tr");
        const text = cell(trustText(trust), trust.acknowledged ? "" : "bad-text");
        text.colSpan = 5;
        const ops = document.createElement("td");
        ops.append(ackButton(tool, trust));
        flagged.append(text, ops);
        tbody.append(flagged);
      }
    };
    row("tenant (every tool)", view.tenant_level, null, null);
    for (const tool of view.tools) {
      row(tool.tool_name, tool, tool.breaker, tool.tool_name, tool.trust);
      for (const model of tool.models) row(`  × ${model.model}`, model, null, null);
      // p per size band (h and q are not learned per band): the value a decision of that size uses.
      for (const band of tool.bands) {
        const tr = document.createElement("tr");
        const th = document.createElement("th");
        th.scope = "row";
        th.textContent = `  size ${band.band}`;
        tr.append(th, prior(band.recall_probability, view.config.recall_probability));
        tr.append(cell("—"), cell("—"), cell(""), cell(""));
        tbody.append(tr);
      }
    }
    byId("learning-body").hidden = false;
    byId("learning-sees").hidden = false;
    byId("learning-sees").textContent = `The breaker's rule: ${view.breaker_rule_sees}`;
  }
  /** @param {Event} [event] */
  async function load(event) {
    if (event) event.preventDefault();
    status("Reading what the gate learned…", "");
    try {
      const res = await fetch("/v1/learning", { headers: gateHeaders() });
      const body = await res.json().catch(() => null);
      if (!res.ok) {
        status(
          res.status === 401
            ? "This worker needs a gate key: enter it in the calculator above, then Load."
            : `The API answered: ${errorMessage(body, res)}`,
          "error",
        );
        return;
      }
      /** @type {LearningView} */
      const view = body;
      tenant = view.tenant;
      render(view);
      const when =
        view.computed_at === null
          ? "never refreshed: the config's priors everywhere"
          : `refreshed ${view.computed_at.slice(0, 16)} UTC`;
      const off = view.enabled ? "" : " Learning is off (learning_enabled: false).";
      status(
        `Tenant ${view.tenant}, ${when}; ranges at ${view.range_level}.${off}${view.problem ? ` ${view.problem}` : ""}`,
        view.problem ? "warn" : "",
      );
    } catch (error) {
      status(`Could not reach the API: ${messageOf(error)}`, "error");
    }
  }
  form.addEventListener("submit", load);
  load();
})();
