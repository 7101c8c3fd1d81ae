import app from "./index";

/**
 * The Worker's entry (wrangler.toml `main`). The app (src/index.ts: every
 * route, its zod schemas, the OpenAPI wiring) is built at startup, which
 * Workers runs while the caller's TLS handshake is still under way; work
 * done on the first request is not hidden that way (docs/performance.md §
 * Cold start has both figures). The Cron Triggers' modules and the queue
 * consumer (src/ledger/consumer.ts) are loaded on their first run: no
 * request waits on them.
 *
 * @example
 * const res = await worker.fetch(new Request("http://127.0.0.1:8787/healthz"), env, ctx);
 */
const worker = {
  fetch(request, env, ctx) {
    return app.fetch(request, env, ctx);
  },
  async scheduled(controller, env, ctx) {
    // Two Cron Triggers: the learning refresh every minute, the price sync every six hours.
    const learning = await import("./learning/scheduled");
    if (controller.cron === learning.LEARNING_CRON) {
      ctx.waitUntil(learning.runLearningRefresh(env, controller.scheduledTime));
      return;
    }
    await app.scheduled(controller, env, ctx);
  },
  async queue(batch, env) {
    // LEDGER_QUEUE's decision records, and its dead letters when an operator attaches the worker to them.
    const { consumeLedgerBatch } = await import("./ledger/consumer");
    await consumeLedgerBatch(batch, env);
  },
} satisfies ExportedHandler<Env>;

export default worker;
/** The outcomes ledger's Durable Object class, bound as LEDGER in wrangler.toml. */
export { LedgerShard } from "./ledger/shard";
