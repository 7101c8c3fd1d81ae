// The console's savings panel. Plain browser JavaScript with no build step,
// inlined with the page's CSP nonce after shared.client.js: it reads
// GET /v1/savings (same origin) and draws what the ledger says. Nothing here
// computes a saving itself.

(() => {
  "use strict";
  const { find, byId, svg: el, usd, num, interval, setStatus, gateHeaders, messageOf } = consoleKit;
  const form = find("savings-form");
  if (!form) return;

  /** @param {string} text @param {string} [kind] */
  const status = (text, kind) => setStatus(byId("savings-status"), text, kind);

  /** @param {SavingsReport} r */
  function tiles(r) {
    const dl = byId("savings-tiles");
    dl.replaceChildren();
    /** @type {[string, string][]} */
    const items = [
      ["decisions", num(r.decisions, 0)],
      ["fired", num(r.fired, 0)],
      ["held out", num(r.holdout_decisions, 0)],
      ["outcomes", num(r.outcomes, 0)],
      ["predicted net", usd(r.net.predicted_usd)],
      ["realized net", usd(r.net.realized_usd)],
      [
        "realized − predicted, per decision",
        r.net.mean_gap_usd === null
          ? "none yet: no outcome reported"
          : r.net.mean_gap_ci95 === null
            ? `${usd(r.net.mean_gap_usd)} (too few for an interval)`
            : `${usd(r.net.mean_gap_usd)} (95%: ${interval(r.net.mean_gap_ci95, usd)})`,
      ],
      ["missed savings", `${usd(r.missed_savings.usd)} over ${num(r.missed_savings.decisions, 0)}`],
      // The providers' cache diagnostics: misses right after the gate's own rewrites apart from the rest.
      [
        "cache misses (diagnosed)",
        r.cache_misses.sessions === 0
          ? "none reported: no bill carried cache diagnostics"
          : `${num(r.cache_misses.after_gate_rewrite, 0)} tokens after the gate's rewrites, ${num(r.cache_misses.other, 0)} otherwise, over ${num(r.cache_misses.sessions, 0)} sessions`,
      ],
    ];
    for (const [label, value] of items) {
      const div = document.createElement("div");
      const dt = document.createElement("dt");
      const dd = document.createElement("dd");
      dt.textContent = label;
      dd.textContent = value;
      div.append(dt, dd);
      dl.append(div);
    }
  }

  /** @param {SavingsReport} r */
  function chart(r) {
    const svg = byId("savings-chart", SVGSVGElement);
    svg.replaceChildren();
    const points = r.series.filter((b) => b.fired_with_outcome > 0);
    if (points.length === 0) {
      svg.append(
        el("text", { x: 280, y: 130, "text-anchor": "middle" }, "No fired decision has an outcome in this window yet."),
      );
      return;
    }
    const W = 560,
      H = 260,
      L = 84,
      R = 12,
      T = 12,
      B = 36;
    const xs = points.map((b) => Date.parse(b.start));
    const ys = points.flatMap((b) => [b.predicted_net_usd, b.realized_net_usd]).concat([0]);
    const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
    let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
    if (y0 === y1) [y0, y1] = [y0 - 1, y1 + 1];
    const x = (/** @type {number} */ t) => (x1 === x0 ? (L + W - R) / 2 : L + ((t - x0) / (x1 - x0)) * (W - L - R));
    const y = (/** @type {number} */ v) => T + ((y1 - v) / (y1 - y0)) * (H - T - B);
    svg.append(el("line", { class: "axis", x1: L, y1: T, x2: L, y2: H - B }));
    svg.append(el("line", { class: "zero", x1: L, y1: y(0), x2: W - R, y2: y(0) }));
    const axis = (/** @type {number} */ v) =>
      (v < 0 ? "−$" : "$") + Math.abs(v).toLocaleString("en-US", { maximumFractionDigits: 2 });
    for (const v of [y0, 0, y1]) svg.append(el("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end" }, axis(v)));
    const label = (/** @type {number} */ t) =>
      new Date(t).toISOString().slice(r.bucket === "day" ? 5 : 11, r.bucket === "day" ? 10 : 16);
    svg.append(el("text", { x: L, y: H - 12 }, label(x0)));
    if (x1 !== x0) svg.append(el("text", { x: W - R, y: H - 12, "text-anchor": "end" }, label(x1)));
    /** @type {["predicted_net_usd" | "realized_net_usd", string][]} */
    const lines = [
      ["predicted_net_usd", "predicted"],
      ["realized_net_usd", "realized"],
    ];
    for (const [key, cls] of lines) {
      const d = points
        .map((b, i) => `${i === 0 ? "M" : "L"}${x(Date.parse(b.start)).toFixed(1)},${y(b[key]).toFixed(1)}`)
        .join(" ");
      svg.append(el("path", { class: `series ${cls}`, d }));
      for (const b of points) {
        const dot = el("circle", { class: `dot ${cls}`, cx: x(Date.parse(b.start)), cy: y(b[key]), r: 3.5 });
        dot.append(el("title", {}, `${b.start}: ${cls} ${usd(b[key])} over ${b.fired_with_outcome} decisions`));
        svg.append(dot);
      }
    }
  }

  /** @param {SavingsReport} r */
  function priors(r) {
    const body = byId("savings-priors", HTMLTableElement).tBodies[0];
    if (body === undefined) return;
    body.replaceChildren();
    /** @type {[string, number | null, [number, number] | null, number | null, number][]} */
    const rows = [
      ["recall rate", r.recall.realized, r.recall.ci95, r.recall.prior, r.recall.n],
      ["horizon (turns after)", r.horizon.realized_mean, r.horizon.ci95, r.horizon.prior_mean, r.horizon.n],
      [
        "cache hit rate",
        r.cache_hit_rate.realized_mean,
        r.cache_hit_rate.ci95,
        r.cache_hit_rate.prior_mean,
        r.cache_hit_rate.n,
      ],
    ];
    for (const [name, realized, ci, prior, n] of rows) {
      const tr = document.createElement("tr");
      const outside = ci && prior !== null && (prior < ci[0] || prior > ci[1]);
      for (const [i, text] of [name, num(realized), interval(ci, (v) => num(v)), num(prior), num(n, 0)].entries()) {
        const cell = document.createElement(i === 0 ? "th" : "td");
        cell.textContent = text;
        if (i === 3 && outside) {
          cell.className = "neg";
          cell.title = "The prior lies outside the realized interval";
        }
        tr.append(cell);
      }
      body.append(tr);
    }
    // The proxy's observed decisions (docs/design/proxy.md §6): the recall rate as the range the evidence
    // allows, charged recalls to any detection (docs/design/learning.md §8), never a point it cannot claim.
    const range = r.recall_range;
    if (range.n > 0) {
      const tr = document.createElement("tr");
      const cells = [
        "recall rate, observed (not enacted)",
        `${num(range.low)} – ${num(range.high)}`,
        "charged – any detection",
        "",
        num(range.n, 0),
      ];
      for (const [i, text] of cells.entries()) {
        const cell = document.createElement(i === 0 ? "th" : "td");
        cell.textContent = text;
        tr.append(cell);
      }
      body.append(tr);
    }
  }

  /** @type {Record<string, string>} */
  const WITHHELD = { too_few_sessions: "fewer than 30 sessions in an arm", zero_spread: "no spread in the bills" };

  // The proxy's rows are marked `observed` (docs/design/proxy.md §6): nothing was stubbed, so such a row is
  // what the gate would have done, never what it did; its tool is shown without the prefix it is kept under.
  /** @param {{ tool_name: string, observed: boolean }} t */
  function toolLabel(t) {
    if (t.tool_name === "") return "(no tool_name)";
    return t.observed ? `${t.tool_name.replace(/^observed:/, "")} (observed, not enacted)` : t.tool_name;
  }

  /** @param {SavingsReport} r */
  function holdout(r) {
    const h = r.holdout;
    const body = byId("savings-tools", HTMLTableElement).tBodies[0];
    if (body === undefined) return;
    body.replaceChildren();
    for (const t of h.tools) {
      const tr = document.createElement("tr");
      const verdict = t.withheld ? `${t.verdict} (${WITHHELD[t.withheld]})` : t.verdict;
      const cells = [
        toolLabel(t),
        `${num(t.treated, 0)} / ${num(t.held_out, 0)}`,
        usd(t.estimate_usd),
        interval(t.interval, usd),
        verdict,
        interval(t.information.welch_ci95, usd),
      ];
      for (const [i, text] of cells.entries()) {
        const cell = document.createElement(i === 0 ? "th" : "td");
        cell.textContent = text;
        if (i === 4) cell.className = `verdict ${t.verdict}`;
        tr.append(cell);
      }
      body.append(tr);
    }
    if (h.tools.length === 0) {
      const tr = document.createElement("tr");
      const cell = document.createElement("td");
      cell.colSpan = 6;
      cell.textContent = "No billed session with a decision yet: set holdout_fraction, then report sessions.";
      tr.append(cell);
      body.append(tr);
    }
    const t = h.tenant;
    const verdict = byId("savings-verdict");
    verdict.className = `verdict ${h.verdict}`;
    verdict.textContent =
      t.interval === null
        ? `Verdict: inconclusive: too few billed sessions in an arm of some tool to combine ${num(t.tools, 0)} tools.`
        : `Verdict: ${h.verdict}${t.withheld ? ` (${WITHHELD[t.withheld]} for some tool)` : ""}. Tenant-wide, the gate changes a session's bill by ${usd(t.estimate_usd)}, 95% interval ${interval(t.interval, usd)} over ${num(t.tools, 0)} tools (each at α ÷ ${num(t.tools, 0)}; valid however often this is read).`;
    const svg = byId("savings-interval", SVGSVGElement);
    svg.replaceChildren();
    if (!t.interval) {
      svg.append(
        el(
          "text",
          { x: 280, y: 38, "text-anchor": "middle", class: "empty" },
          "No interval yet: it needs session bills in both arms of every tool.",
        ),
      );
      return;
    }
    const lo = Math.min(t.interval[0], 0),
      hi = Math.max(t.interval[1], 0);
    const pad = (hi - lo) * 0.1 || 1;
    const x = (/** @type {number} */ v) => 16 + ((v - (lo - pad)) / (hi - lo + 2 * pad)) * 528;
    svg.append(el("line", { class: "zero", x1: x(0), y1: 6, x2: x(0), y2: 44 }));
    svg.append(el("text", { x: x(0), y: 60, "text-anchor": "middle" }, "$0"));
    svg.append(el("line", { class: `ci ${h.verdict}`, x1: x(t.interval[0]), y1: 26, x2: x(t.interval[1]), y2: 26 }));
    svg.append(el("circle", { class: `dot ${h.verdict}`, cx: x(t.estimate_usd ?? 0), cy: 26, r: 5 }));
  }

  /** @param {unknown} body @param {Response} res */
  const errorMessage = (body, res) => {
    const error =
      body !== null && typeof body === "object"
        ? /** @type {{ error?: { message?: string } }} */ (body).error
        : undefined;
    return error ? error.message : `HTTP ${res.status}`;
  };

  /** @param {Event} [event] */
  async function load(event) {
    if (event) event.preventDefault();
    const to = Date.now();
    const query = new URLSearchParams({
      from: new Date(to - Number(consoleKit.control("s-window").value)).toISOString(),
      to: new Date(to + 60_000).toISOString(),
    });
    for (const [field, id] of [
      ["tool_name", "s-tool"],
      ["model", "s-model"],
    ]) {
      const value = consoleKit.control(String(id)).value.trim();
      if (value !== "") query.set(String(field), value);
    }
    status("Reading the ledger…", "");
    try {
      const res = await fetch(`/v1/savings?${query}`, { headers: gateHeaders() });
      const body = await res.json().catch(() => null);
      if (!res.ok) {
        const message = errorMessage(body, res);
        status(
          res.status === 401
            ? "This worker needs a gate key: enter it in the calculator above, then Load."
            : `The ledger answered: ${message}`,
          "error",
        );
        return;
      }
      /** @type {SavingsReport} */
      const report = body;
      byId("savings-body").hidden = false;
      tiles(report);
      chart(report);
      priors(report);
      holdout(report);
      const missing =
        report.shards.unavailable > 0
          ? ` ${report.shards.unavailable} of ${report.shards.queried} shards did not answer: figures are partial.`
          : "";
      status(
        `Tenant ${report.tenant}, ${report.window.from.slice(0, 16)} to ${report.window.to.slice(0, 16)} UTC, per ${report.bucket}.${missing}`,
        missing ? "warn" : "",
      );
    } catch (error) {
      status(`Could not reach the ledger: ${messageOf(error)}`, "error");
    }
  }

  form.addEventListener("submit", load);
  load();
})();
