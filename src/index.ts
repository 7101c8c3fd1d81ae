import { adminAuth } from "./auth/admin";
import { gateKeys } from "./auth/gate";
import { notFound, onError } from "./http/errors";
import { jsonBody } from "./http/guards";
import { admin } from "./routes/admin";
import { createApp } from "./routes/app";
import { consoleApp } from "./routes/console";
import { docs, serveOpenApi } from "./routes/docs";
import { directGate, gate } from "./routes/gate";
import { health } from "./routes/health";
import { learning } from "./routes/learning";
import { ledger } from "./routes/ledger";
import { refuseOtherMethods } from "./routes/methods";
import { plan } from "./routes/plan";
import { scheduled } from "./sync/scheduled";

/**
 * offload-gate: decides, per large tool output, whether replacing it with a
 * stub provably saves money. This file only wires routes and errors.
 */
const app = createApp();

// Who is calling comes before anything about the body; gateKeys() sets the
// tenant of every gate request. "/v1/gate/*" also
// matches "/v1/gate" itself, so one registration guards both (and counts
// each request once against the rate limit).
app.use("/v1/gate/*", gateKeys());
// A plan counts one request, like a batch: its work is bounded (≤ 1 ms of CPU at the limits).
for (const path of ["/v1/plan", "/v1/outcomes", "/v1/sessions", "/v1/savings", "/v1/learning"]) app.use(path, gateKeys());
app.use("/v1/admin/*", adminAuth());
app.use("/v1/*", jsonBody());

const routes = app.route("/", health).route("/", gate).route("/", plan).route("/", admin).route("/", ledger).route("/", learning);
// The console (GET /) and Swagger UI (GET /docs) are pages, not API: they
// stay out of AppType and out of the OpenAPI document.
app.route("/", consoleApp).route("/", docs);
serveOpenApi(app);

refuseOtherMethods(app);
app.notFound(notFound);
app.onError(onError);

/** The app's route types, for `hc<AppType>()` clients. */
export type AppType = typeof routes;
// POST /v1/gate and /v1/gate/batch are served past Hono's pipeline, with
// the same rules and answers (src/routes/gate/direct.ts); the rest is Hono's.
const honoFetch = app.fetch;
const fetch: typeof app.fetch = (request, env, ctx) => directGate(request, env as Env | undefined, ctx as ExecutionContext | undefined) ?? honoFetch(request, env, ctx);
// The Cron Trigger (wrangler.toml [triggers]) runs the staged price sync.
export default Object.assign(app, { scheduled, fetch });
/** The outcomes ledger's Durable Object class, bound as LEDGER in wrangler.toml. */
export { LedgerShard } from "./ledger";
