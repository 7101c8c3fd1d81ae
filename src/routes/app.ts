import { adminAuth, gateKeys } from "../auth";
import { jsonBody, notFound, onError } from "../http";
import { admin } from "./admin";
import { consoleApp, replayPage } from "./console";
import { docs, serveOpenApi } from "./docs";
import { gate } from "./gate";
import { health } from "./health";
import { createApp } from "./kernel/openapi";
import { learning, REFRESH_PATH } from "./learning";
import { ledger } from "./ledger";
import { refuseOtherMethods } from "./methods";
import { plan } from "./plan";
import { documentProxy } from "./proxy-doc";

/**
 * offload-gate's app: every route, its guards, the OpenAPI document and the
 * error answers, wired. The entry (src/index.ts) builds it on the first
 * request that needs it, once per isolate; POST /v1/gate, /v1/gate/batch
 * and GET /healthz are answered before it, with the same rules and answers
 * (src/routes/gate/direct/direct.ts, src/routes/health-ok.ts).
 *
 * @example
 * const res = await app.request("/openapi.json");
 */
const app = createApp();

// Who is calling comes before anything about the body; gateKeys() sets the
// tenant of every gate request. "/v1/gate/*" also
// matches "/v1/gate" itself, so one registration guards both (and counts
// each request once against the rate limit).
app.use("/v1/gate/*", gateKeys());
// A plan counts one request, like a batch: its work is bounded (≤ 1 ms of CPU at the limits).
for (const path of [
  "/v1/plan",
  "/v1/context-management",
  "/v1/outcomes",
  "/v1/sessions",
  "/v1/savings",
  "/v1/learning",
])
  app.use(path, gateKeys());
app.use("/v1/admin/*", adminAuth());
// The refresh alone takes no body at all (docs/learning.md shows it so).
app.use("/v1/*", jsonBody([REFRESH_PATH]));

const routes = app
  .route("/", health)
  .route("/", gate)
  .route("/", plan)
  .route("/", admin)
  .route("/", ledger)
  .route("/", learning);
// The console (GET /) and Swagger UI (GET /docs) are pages, not API: they
// stay out of AppType and out of the OpenAPI document.
app.route("/", consoleApp).route("/", replayPage).route("/", docs);
// The proxy's routes are answered by the entry, before the app; the document describes them all the same.
documentProxy(app);
serveOpenApi(app);

refuseOtherMethods(app);
app.notFound(notFound);
app.onError(onError);

/** The app's route types, for `hc<AppType>()` clients. */
export type AppType = typeof routes;
export default app;
