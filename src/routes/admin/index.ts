import { createApp } from "../app";
import { adminAliases } from "./aliases";
import { adminConfig } from "./config";
import { adminPricing } from "./pricing";

/**
 * /v1/admin: pricing rows, alias keys and the gate config, audited. Authentication
 * (`adminAuth()`) is wired in src/index.ts, ahead of every body check; the
 * methods each path allows are in ../methods.ts.
 *
 * @example
 * app.use("/v1/admin/*", adminAuth()).route("/", admin);
 */
export const admin = createApp().route("/", adminPricing).route("/", adminAliases).route("/", adminConfig);
