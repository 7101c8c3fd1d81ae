// Global setup for `npm run test:e2e`: a throwaway local gate (its own
// seeded KV, plus the rows below) on 127.0.0.1:8835, offline.
import { readFileSync } from "node:fs";
import { startLocalGate } from "../scripts/local-gate";
import { bundleReplayPage } from "../scripts/replay/bundle.mjs";
import { pendingKey } from "../src/storage/rules/keys";

export const PORT = 8835;
const INSPECTOR_PORT = 8836;
export const BASE_URL = `http://127.0.0.1:${PORT}`;
export const ADMIN_TOKEN = "e2e-admin-token-not-a-secret";
const STATE_DIR = ".wrangler/e2e-state";

/** Rows the browser test needs beyond the seed: one past 90 days, one corrupt. */
export const EXTRA_ROWS = {
  "legacy-model-2025": JSON.stringify({
    input: 2,
    output: 8,
    provider: "legacy",
    aliases: ["legacy-2025-01"],
    verified_at: "2025-01-15",
  }),
  "broken-model": JSON.stringify({ input: -1, output: 4 }),
};

/** A change the price sync proposes for a seeded row, for the console's approve flow. */
export const PENDING_MODEL = "gpt-4o";
const seedRow = JSON.parse(readFileSync("pricing.seed.json", "utf8")).models[PENDING_MODEL];
export const PENDING_KEYS = {
  [pendingKey(PENDING_MODEL)]: JSON.stringify({
    model: PENDING_MODEL,
    kind: "changed",
    status: "pending",
    before: seedRow,
    after: { ...seedRow, input: 2.25, source: "https://prices.example.test/prices.json" },
    fields: [{ field: "input", from: seedRow.input, to: 2.25 }],
    source: "https://prices.example.test/prices.json",
    detected_at: "2026-11-30T06:17:00.000Z",
  }),
};

let stopGate: (() => Promise<void>) | undefined;

export async function setup(): Promise<void> {
  // The replay page's script is a static asset built from src/replay: build it before the gate serves public/.
  await bundleReplayPage();
  const gate = await startLocalGate({
    port: PORT,
    inspectorPort: INSPECTOR_PORT,
    stateDir: STATE_DIR,
    vars: { ADMIN_TOKEN },
    extraRows: EXTRA_ROWS,
    extraKeys: PENDING_KEYS,
  });
  stopGate = gate.stop;
}

export async function teardown(): Promise<void> {
  await stopGate?.();
}
