declare module "*?raw" {
  const text: string;
  export default text;
}

// Vite's import.meta.glob, as test/surface/docs-admin.test.ts uses it (eager, one export).
interface ImportMeta {
  glob<T>(patterns: string | string[], options: { query?: string; import?: string; eager: true }): Record<string, T>;
}

// Bindings vitest.config.ts adds for tests only.
declare namespace Cloudflare {
  interface Env {
    TEST_TIGHT_LIMITER: RateLimit;
    TEST_DEPLOYED_ADMIN_LIMITER: RateLimit;
    /** Ledger shards whose writes throw, or hang until released (test/fixtures/faulty-ledger.js). */
    LEDGER_THROWING: Env["LEDGER"];
    LEDGER_HANGING: DurableObjectNamespace<import("./fixtures/faulty-ledger").HangingLedgerShape>;
    /** Queue producers whose sends throw, or hang until LEDGER_HANGING's release() (test/fixtures/faulty-ledger.js). */
    LEDGER_QUEUE_THROWING: Pick<Queue, "send" | "sendBatch">;
    LEDGER_QUEUE_HANGING: Pick<Queue, "send" | "sendBatch">;
  }
}
