import { createApp } from "../kernel/openapi";
import { adminAliases } from "./aliases";
import { adminConfig } from "./config";
import { adminPending } from "./pending";
import { adminPricing } from "./pricing";

/**
 * /v1/admin: pricing rows, alias keys and the gate config, audited, and the
 * price sync's pending changes. Authentication
 * (`adminAuth()`) is wired in src/index.ts, ahead of every body check; the
 * methods each path allows are in ../methods.ts.
 *
 * @example
 * app.use("/v1/admin/*", adminAuth()).route("/", admin);
 */
export const admin = createApp()
  .route("/", adminPricing)
  .route("/", adminAliases)
  .route("/", adminConfig)
  .route("/", adminPending);

export { auditRoutes } from "./audit";
export { adminRoute } from "./schema";
