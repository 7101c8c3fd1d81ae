import { raw } from "hono/html";
import { NONCE, secureHeaders } from "hono/secure-headers";
import { ApiError, waitUntilOf } from "../../http";
import { cachePolicy, readGateConfig, readListing } from "../../storage";
import { DEFAULT_GATE_CONFIG, PRICING_PREFIX } from "../../storage/rules";
import { parseRow } from "../../storage/schemas";
import { createApp } from "../kernel/openapi";

/**
 * @module routes/console/replay
 *
 * GET /console/replay: the console's replay page (docs/replay.md). Drop a
 * transcript on it and the page parses and replays it in the browser
 * (src/replay, bundled by scripts/replay/bundle.mjs into the static asset
 * /console/assets/replay.js) with the pricing rows served in the page
 * itself, so the page's only requests are itself and its script: its
 * Content-Security-Policy allows no connection at all.
 */

/** Where the page's script is served from (Workers Static Assets, public/). */
export const REPLAY_SCRIPT = "/console/assets/replay.js";

const csp = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: [NONCE],
    imgSrc: ["data:"],
    connectSrc: ["'none'"],
    baseUri: ["'none'"],
    formAction: ["'none'"],
    frameAncestors: ["'none'"],
  },
  referrerPolicy: "no-referrer",
});

const STYLE =
  "body{font:14px/1.45 system-ui,sans-serif;margin:2rem;color:#111}#replay-drop{border:2px dashed #999;padding:2rem;text-align:center;border-radius:8px}" +
  "#replay-drop.over{background:#eef}table{border-collapse:collapse;margin:.5rem 0 1.5rem}th,td{border:1px solid #ddd;padding:.25rem .5rem;text-align:left;white-space:nowrap}" +
  "th{background:#f4f4f5}svg{max-width:100%;height:auto;border:1px solid #eee}#replay-issues{color:#a11}";

/**
 * The page: the drop zone, the pricing rows as JSON, and the script.
 *
 * @example
 * app.route("/", replayPage); // then open http://127.0.0.1:8787/console/replay
 */
export const replayPage = createApp().get("/console/replay", csp, async (c) => {
  const waitUntil = waitUntilOf(c);
  const config = await readGateConfig(c.env.PRICING, waitUntil);
  const listing = await readListing(
    c.env.PRICING,
    PRICING_PREFIX,
    cachePolicy(config.ok ? config.config : DEFAULT_GATE_CONFIG),
    waitUntil,
  );
  if (listing.kind === "miss")
    throw new ApiError("unavailable", "the pricing rows cannot be listed from KV right now; retry shortly");
  // Each valid row as stored, its scheduled changes included: replay prices each call at the row in force then.
  const models: Record<string, unknown> = {};
  for (const [model, text] of listing.value) {
    const parsed = parseRow(model, text);
    if (parsed.kind === "row") models[model] = parsed.row;
  }
  // "<" escaped, so no row's text can close the script element.
  const data = JSON.stringify({ models }).replace(/</g, "\\u003c");
  const nonce = c.get("secureHeadersNonce") ?? "";
  return c.html(
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <title>offload-gate · replay</title>
        <style nonce={nonce}>{STYLE}</style>
      </head>
      <body>
        <h1>Replay a transcript</h1>
        <p>
          Drop a Claude Code session, a Codex rollout, a SWE-agent or mini-swe-agent trajectory, an ATIF file or an
          offload-gate session log. It is read and priced here, in your browser, at the {Object.keys(models).length}{" "}
          pricing rows this page was served with; nothing is sent anywhere. <a href="/">Back to the console</a>.
        </p>
        <label id="replay-drop">
          Drop a file here, or choose one: <input id="replay-file" type="file" accept=".jsonl,.json,.traj,.md" />
        </label>
        <p id="replay-status" role="status"></p>
        <pre id="replay-issues"></pre>
        <div id="replay-report"></div>
        <script type="application/json" id="replay-pricing">
          {raw(data)}
        </script>
        <script src={REPLAY_SCRIPT} defer />
      </body>
    </html>,
    200,
    { "cache-control": "no-store" },
  );
});
