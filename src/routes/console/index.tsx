import { NONCE, secureHeaders } from "hono/secure-headers";
import { PRICING_MODES } from "../../gate";
import { ApiError, waitUntilOf } from "../../http";
import { cachePolicy, readGateConfig, readListing } from "../../storage";
import { ALIAS_PREFIX, DEFAULT_GATE_CONFIG, PENDING_PREFIX } from "../../storage/rules";
import { pendingFrom, withDigests } from "../../sync";
import { createApp } from "../kernel/openapi";
import { aliasViews } from "./aliases";
import calculatorCss from "./browser/calculator.client.css";
import chartsScript from "./browser/charts.client.js";
import css from "./browser/console.client.css";
import script from "./browser/console.client.js";
import editingScript from "./browser/editing.client.js";
import learningScript from "./browser/learning.client.js";
import planCss from "./browser/plan.client.css";
import planScript from "./browser/plan.client.js";
import pricingCss from "./browser/pricing.client.css";
import savingsCss from "./browser/savings.client.css";
import savingsScript from "./browser/savings.client.js";
import sharedScript from "./browser/shared.client.js";
import tableScript from "./browser/table.client.js";
import { loadPricingTable } from "./data";
import { ConsolePage } from "./page";
import type { PendingView } from "./pending";

// The page's own style and script carry the nonce; everything else is
// same-origin, and the only thing the page fetches is this worker's API.
const csp = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    scriptSrc: [NONCE],
    styleSrc: [NONCE],
    imgSrc: ["'self'", "data:"],
    connectSrc: ["'self'"],
    baseUri: ["'none'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
  },
  referrerPolicy: "no-referrer",
});

/**
 * GET /: the ops console. Server-rendered with Hono JSX from KV (pricing
 * rows, the gate config); no build step, no external asset.
 *
 * @example
 * app.route("/", consoleApp); // then open http://127.0.0.1:8787/
 */
export const consoleApp = createApp().get("/", csp, async (c) => {
  // Every KV read here goes through the isolate's held listings: an
  // anonymous view costs no KV operation while they are fresh.
  const waitUntil = waitUntilOf(c);
  const config = await readGateConfig(c.env.PRICING, waitUntil);
  const policy = cachePolicy(config.ok ? config.config : DEFAULT_GATE_CONFIG);
  const [rows, pendingRead, aliasRead] = await Promise.all([
    loadPricingTable(c.env.PRICING, Date.now(), policy, waitUntil),
    readListing(c.env.PRICING, PENDING_PREFIX, policy, waitUntil),
    readListing(c.env.PRICING, ALIAS_PREFIX, policy, waitUntil),
  ]);
  if (rows === null)
    throw new ApiError("unavailable", "the pricing rows cannot be listed from KV right now; retry shortly");
  // Each change with its digest: the Approve button sends it, so it applies only what the page shows.
  const pending: PendingView =
    pendingRead.kind === "miss"
      ? { ok: false, detail: `pending changes could not be read: ${pendingRead.detail}` }
      : await (async ({ changes, invalid }) => ({
          ok: true as const,
          changes: await withDigests(changes),
          invalid: invalid.length,
        }))(pendingFrom(pendingRead.value));
  const view = {
    rows,
    config: config.ok ? { ok: true as const, config: config.config } : { ok: false as const, detail: config.detail },
    modes: PRICING_MODES,
    pending,
    aliases: aliasRead.kind === "miss" ? null : aliasViews(aliasRead.value, rows),
    nonce: c.get("secureHeadersNonce") ?? "",
    // One style and one script, each under the nonce. The shared helpers come first (every script after
    // them uses `consoleKit`), the charts before the calculator that draws them; then editing, the plan
    // view, the savings and learning panels and the table cue.
    css: `${css}\n${calculatorCss}\n${pricingCss}\n${planCss}\n${savingsCss}`,
    script: [
      sharedScript,
      chartsScript,
      script,
      editingScript,
      planScript,
      savingsScript,
      learningScript,
      tableScript,
    ].join("\n"),
  };
  return c.html(<ConsolePage view={view} />, 200, { "cache-control": "no-store" });
});

export { replayPage } from "./replay";
