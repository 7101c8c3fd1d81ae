// The helpers every console script shares. Plain browser JavaScript with no
// build step: index.tsx puts this file first in the page's one inline script
// (under the CSP nonce), so `consoleKit` is in scope for every script after
// it. Type-checked with the DOM library (./tsconfig.json); the JSON the
// scripts read is typed by the worker's own schemas (./api.ts).

// The types of what the scripts read and pass around, for every file (typedefs of a script are global).
/** @typedef {import("./api").ErrorBody} ErrorBody */
/** @typedef {import("./api").GateDecision} GateDecision */
/** @typedef {import("./api").GateCurve} GateCurve */
/** @typedef {import("./api").CurvePoint} CurvePoint */
/**
 * What one chart draws: the API's points, the decision's own point, its break-even and, on the size chart, the pre-filter.
 * @typedef {object} ChartSpec
 * @property {CurvePoint[]} points
 * @property {CurvePoint | undefined} here
 * @property {number | null} breakEven
 * @property {string} beLabel
 * @property {string} xLabel
 * @property {(v: number) => string} fmtX
 * @property {number | null} prefilter
 */
/** @typedef {import("./api").ConsoleData} ConsoleData */
/** @typedef {import("./api").Plan} Plan */
/** @typedef {import("./api").PlanRequest["segments"][number]} Segment */
/** @typedef {{ id?: string, tokens: number, kind: string }} BarPart */
/** @typedef {import("./api").SavingsReport} SavingsReport */
/** @typedef {import("./api").LearningView} LearningView */
/** @typedef {LearningView["tenant_level"]} LearningLevel */
/** @typedef {LearningLevel["priors"]["horizon"]} LearnedField */
/** @typedef {LearningView["tools"][number]["breaker"]} Breaker */
/** @typedef {LearningView["tools"][number]["trust"]} Trust */

const consoleKit = (() => {
  "use strict";
  const SVG = "http://www.w3.org/2000/svg";

  /**
   * The element with this id, or null when the page has none (a panel that is not shown).
   *
   * @example
   * if (consoleKit.find("savings-form") === null) return;
   * @param {string} id
   */
  const find = (id) => document.getElementById(id);

  /**
   * The element with this id, checked to be of `kind` (default: an HTML
   * element; pass SVGSVGElement for a chart). Throws when the page lacks it:
   * the script and the page disagree, which no later line could survive.
   *
   * @example
   * consoleKit.byId("plan-candidates", HTMLTableElement).tBodies[0]
   * @template {Element} [T=HTMLElement]
   * @param {string} id
   * @param {abstract new (...args: never[]) => T} [kind]
   * @returns {T}
   */
  function byId(id, kind) {
    const node = document.getElementById(id);
    if (!(node instanceof (kind ?? HTMLElement)))
      throw new Error(`the console has no #${id} of the kind its script reads`);
    return /** @type {T} */ (/** @type {unknown} */ (node));
  }

  /**
   * A form control with a `value`: an input, a select or a text area.
   *
   * @example
   * consoleKit.control("f-model").value.trim()
   * @param {string} id
   * @returns {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement}
   */
  function control(id) {
    const node = document.getElementById(id);
    if (node instanceof HTMLInputElement || node instanceof HTMLSelectElement || node instanceof HTMLTextAreaElement)
      return node;
    throw new Error(`the console has no form control #${id}`);
  }

  /**
   * An SVG element with these attributes and, optionally, this text.
   *
   * @example
   * consoleKit.svg("text", { x: 280, y: 150, "text-anchor": "middle" }, "No data yet")
   * @param {string} name
   * @param {Record<string, string | number | boolean>} [attrs]
   * @param {string} [text]
   * @returns {SVGElement}
   */
  function svg(name, attrs, text) {
    const node = /** @type {SVGElement} */ (document.createElementNS(SVG, name));
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /**
   * Money, one precision on the whole page: four decimals, as the reasons write it; "—" for none.
   *
   * @example
   * consoleKit.usd(-0.00669) // "−$0.0067"
   * @param {number | null | undefined} n
   */
  const usd = (n) =>
    n === null || n === undefined
      ? "—"
      : (n < 0 ? "−$" : "$") +
        Math.abs(n).toLocaleString("en-US", { minimumFractionDigits: 4, maximumFractionDigits: 4 });

  /**
   * A number with at most `digits` decimals; "—" for none.
   *
   * @example
   * consoleKit.num(0.75432) // "0.754"
   * @param {number | null | undefined} n
   */
  const num = (n, digits = 3) =>
    n === null || n === undefined ? "—" : n.toLocaleString("en-US", { maximumFractionDigits: digits });

  /**
   * An interval as "lo … hi", each end by `f`; "—" for none.
   *
   * @example
   * consoleKit.interval([0.1, 0.2], consoleKit.usd) // "$0.1000 … $0.2000"
   * @param {readonly [number, number] | null | undefined} ci
   * @param {(v: number) => string} f
   */
  const interval = (ci, f) => (ci === null || ci === undefined ? "—" : `${f(ci[0])} … ${f(ci[1])}`);

  /**
   * Shows a status line: its text, and its kind as a class (error, warn, ok, or none).
   *
   * @example
   * consoleKit.setStatus(consoleKit.byId("plan-status"), "Planning…")
   * @param {HTMLElement} node
   * @param {string} message
   * @param {string} [kind]
   */
  function setStatus(node, message, kind) {
    node.textContent = message;
    node.className = `status${kind ? ` ${kind}` : ""}`;
  }

  /**
   * Request headers with the gate key typed in the calculator, when there is one.
   *
   * @example
   * fetch("/v1/savings", { headers: consoleKit.gateHeaders() })
   * @param {Record<string, string>} [base]
   * @returns {Record<string, string>}
   */
  function gateHeaders(base = {}) {
    const input = find("f-gate-key");
    const key = input instanceof HTMLInputElement ? input.value.trim() : "";
    return key === "" ? { ...base } : { ...base, authorization: `Bearer ${key}` };
  }

  /**
   * What an error answer says, in the project's one error shape: the code and each issue, else the HTTP status.
   *
   * @example
   * consoleKit.describeError(body, res) // "invalid_request: horizon: must be an integer"
   * @param {unknown} body
   * @param {Response} res
   */
  function describeError(body, res) {
    const error =
      body !== null && typeof body === "object" ? /** @type {Partial<ErrorBody>} */ (body).error : undefined;
    if (!error) return `HTTP ${res.status}`;
    const issues = (error.issues || []).map((issue) => `${issue.path || "body"}: ${issue.message}`).join("; ");
    return `${error.code}: ${issues || error.message}`;
  }

  /**
   * A caught value's message.
   *
   * @example
   * consoleKit.messageOf(new TypeError("Failed to fetch")) // "Failed to fetch"
   * @param {unknown} error
   */
  const messageOf = (error) => (error instanceof Error ? error.message : String(error));

  return { find, byId, control, svg, usd, num, interval, setStatus, gateHeaders, describeError, messageOf };
})();
