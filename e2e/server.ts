// Global setup for `npm run test:e2e`: a throwaway local gate (its own
// seeded KV, plus the rows below) on 127.0.0.1:8835, offline.
import { startLocalGate } from "../scripts/local-gate";

export const PORT = 8835;
const INSPECTOR_PORT = 8836;
export const BASE_URL = `http://127.0.0.1:${PORT}`;
export const ADMIN_TOKEN = "e2e-admin-token-not-a-secret";
const STATE_DIR = ".wrangler/e2e-state";

/** Rows the browser test needs beyond the seed: one past 90 days, one corrupt. */
export const EXTRA_ROWS = {
  "legacy-model-2025": JSON.stringify({ input: 2, output: 8, provider: "legacy", aliases: ["legacy-2025-01"], verified_at: "2025-01-15" }),
  "broken-model": JSON.stringify({ input: -1, output: 4 }),
};

let stopGate: (() => Promise<void>) | undefined;

export async function setup(): Promise<void> {
  const gate = await startLocalGate({
    port: PORT,
    inspectorPort: INSPECTOR_PORT,
    stateDir: STATE_DIR,
    vars: { ADMIN_TOKEN },
    extraRows: EXTRA_ROWS,
  });
  stopGate = gate.stop;
}

export async function teardown(): Promise<void> {
  await stopGate?.();
}
