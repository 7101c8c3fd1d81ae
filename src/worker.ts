/**
 * The Worker's entry (wrangler.toml `main`). Startup evaluates only this
 * file and the ledger's Durable Object class: the app, its zod schemas and
 * route tables (src/index.ts) are built on the first request, and the price
 * sync on the first Cron Trigger. The bundler keeps a dynamically imported
 * module unevaluated until the import runs, so a cold isolate's startup CPU
 * stays near a hello-world worker's; the first request pays the build once
 * per isolate (docs/performance.md has both figures).
 */
type App = (typeof import("./index"))["default"];

let app: Promise<App> | undefined;

/** The app, built once per isolate; a failed build is retried by the next request. */
function loadApp(): Promise<App> {
  app ??= import("./index").then(
    (module) => module.default,
    (error: unknown) => {
      app = undefined;
      throw error;
    },
  );
  return app;
}

/**
 * The handlers workerd calls: `fetch` for HTTP, `scheduled` for the Cron
 * Triggers (the price sync; the learning refresh), `queue` for the queued
 * ledger writes (src/ledger/consumer.ts).
 *
 * @example
 * const res = await worker.fetch(new Request("http://127.0.0.1:8787/healthz"), env, ctx);
 */
const worker = {
  async fetch(request, env, ctx) {
    return (await loadApp()).fetch(request, env, ctx);
  },
  async scheduled(controller, env, ctx) {
    // Two Cron Triggers: the learning refresh every minute, the price sync every six hours.
    const learning = await import("./learning/scheduled");
    if (controller.cron === learning.LEARNING_CRON) {
      ctx.waitUntil(learning.runLearningRefresh(env, controller.scheduledTime));
      return;
    }
    const { scheduled } = await import("./sync/scheduled");
    await scheduled(controller, env, ctx);
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
