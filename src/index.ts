import { consumeLedgerBatch } from "./ledger";
import { isProxyUrl, proxyFetch } from "./proxy";
import { directGate, directHealth } from "./routes";
import { lazily } from "./storage";

/** The app's route types, for `hc<AppType>()` clients (a type: it loads nothing). */
export type { AppType } from "./routes";

/** The app, built once per isolate; a failed build is retried by the next request. */
const loadApp = lazily(() => import("./routes/app").then((module) => module.default));

/**
 * The Worker's one entry (wrangler.toml `main`, and what the tests call).
 * It only wires. Startup, which Workers runs while the caller's TLS
 * handshake is still under way, builds what the first answers need: the
 * gate's direct path (POST /v1/gate and /v1/gate/batch: their request
 * schemas, the pricing and config readers, the core), GET /healthz and the
 * ledger's Durable Object class. The rest of the app (src/routes/app.ts:
 * every other route, the answers' schemas, the OpenAPI wiring) is built on
 * the first request that needs it, once per isolate; the Cron Triggers'
 * modules and the queue consumer on their first run.
 * test/node/startup.test.ts checks what startup loads;
 * docs/performance.md § Cold start has the figures and the reasons.
 *
 * @example
 * const res = await worker.fetch(new Request("http://127.0.0.1:8787/healthz"), env, ctx);
 */
const worker = {
  // A plain Request as well as an incoming one: the tests and benchmarks call it with their own.
  fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> | Response {
    // The proxy (src/proxy, loaded on its first request) asks the gate through this same fetch, in-process.
    if (isProxyUrl(request.url)) return proxyFetch(request, env, ctx, async (inner) => worker.fetch(inner, env, ctx));
    return (
      directGate(request, env, ctx) ??
      directHealth(request) ??
      loadApp().then((built) => built.fetch(request, env, ctx))
    );
  },
  async scheduled(controller, env, ctx) {
    // Two Cron Triggers: the learning refresh every minute, the price sync every six hours.
    const learning = await import("./learning/refresh/scheduled");
    if (controller.cron === learning.LEARNING_CRON) {
      ctx.waitUntil(learning.runLearningRefresh(env, controller.scheduledTime));
      return;
    }
    const { scheduled } = await import("./sync/scheduled");
    await scheduled(controller, env, ctx);
  },
  async queue(batch, env) {
    // LEDGER_QUEUE's decision records, and its dead letters when an operator attaches the worker to them.
    await consumeLedgerBatch(batch, env);
  },
} satisfies ExportedHandler<Env>;

export default worker;
/** The outcomes ledger's Durable Object class, bound as LEDGER in wrangler.toml. */
export { LedgerShard } from "./ledger";
/** The proxy's per-session Durable Object class, bound as PROXY_SESSIONS in wrangler.toml. */
export { ProxySession } from "./proxy";
/** The proxy's enforced sessions' Durable Object class, bound as PROXY_ENFORCE in wrangler.toml. */
export { EnforceSession } from "./proxy";
