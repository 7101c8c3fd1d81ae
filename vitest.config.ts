import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
// The message of a fault a test injects on purpose (a KV call that throws):
// the worker logs it with its stack, as it must in production; these lines
// alone are dropped below, so a stack trace in the output is one nobody expected.
import injectedFault from "./test/fixtures/injected-fault.json" with { type: "json" };

// Test-only admin tokens (never a real secret); test/secrets.ts holds the same.
const TEST_ADMIN_TOKEN = "ops-alice:alice-test-token-0123456789,ops-bob:bob-test-token-0123456789";

// Two projects: the worker's tests run inside workerd against the real
// worker and a real local KV namespace (miniflare), never hand-written
// mocks; the ops CLI's tests (and the check of src/'s import graph) run in
// Node, where the CLI runs.
export default defineConfig({
  test: {
    // The worker's tests leave GATE_API_KEYS unset on purpose (the gate open,
    // as in `npm run dev`), so its once-per-isolate notice about an open gate
    // is noise here; test/gate-keys.test.ts checks the notice itself. So are
    // the stack traces of faults a test injects on purpose (test/fixtures/injected-fault.json).
    onConsoleLog: (log) => !log.includes("GATE_API_KEYS is unset") && !log.includes(injectedFault.message),
    projects: [
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              // GATE_API_KEYS is empty, which means unset (the gate open), as in
              // `npm run dev`; tests that need keys pass them in the env they call
              // with. Both are named here so a developer's .dev.vars, which
              // wrangler's config reader loads too, never changes a test.
              bindings: { ADMIN_TOKEN: TEST_ADMIN_TOKEN, GATE_API_KEYS: "" },
              // Real Durable Object bindings to ledger shards that throw or
              // hang (test/fixtures/faulty-ledger.js), for the failure tests.
              durableObjects: {
                LEDGER_THROWING: { className: "ThrowingLedger", scriptName: "faulty-ledger" },
                LEDGER_HANGING: { className: "HangingLedger", scriptName: "faulty-ledger" },
              },
              workers: [
                {
                  name: "faulty-ledger",
                  modules: true,
                  scriptPath: "./test/fixtures/faulty-ledger.js",
                  compatibilityDate: "2026-11-01",
                  // A worker defines a class as a namespace by binding it itself.
                  durableObjects: { THROWING: "ThrowingLedger", HANGING: "HangingLedger" },
                },
              ],
              ratelimits: {
                // Other suites call the open gate (tenant "default") far more
                // often than production's limit allows per minute: lift it here.
                GATE_RATE_LIMITER: { namespace_id: "1000", simple: { limit: 1_000_000, period: 60 } },
                // The auth and fuzz suites fail admin authentication on purpose, all
                // from one address: lifted too; test/admin-auth.test.ts uses the tight one.
                ADMIN_AUTH_LIMITER: { namespace_id: "1100", simple: { limit: 1_000_000, period: 60 } },
                // A second, real (simulated) limiter with a limit a test can reach.
                TEST_TIGHT_LIMITER: { namespace_id: "9001", simple: { limit: 3, period: 60 } },
              },
            },
          }),
        ],
        test: { name: "worker", include: ["test/**/*.test.ts"], exclude: ["test/cli/**", "test/node/**"] },
      },
      {
        test: { name: "cli", environment: "node", include: ["test/cli/**/*.test.ts", "test/node/**/*.test.ts"], testTimeout: 60_000 },
      },
    ],
  },
});
