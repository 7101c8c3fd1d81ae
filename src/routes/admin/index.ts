import { createApp } from "../../http/app";
import { allowOnly } from "../../http/guards";
import { adminConfig } from "./config";
import { adminPricing } from "./pricing";

/**
 * /v1/admin: pricing rows and the gate config, audited. Authentication
 * (`adminAuth()`) is wired in src/index.ts, ahead of every body check.
 *
 * @example
 * app.use("/v1/admin/*", adminAuth()).route("/", admin);
 */
export const admin = createApp().route("/", adminPricing).route("/", adminConfig);

admin.openAPIRegistry.registerComponent("securitySchemes", "adminBearer", {
  type: "http",
  scheme: "bearer",
  description: "An ADMIN_TOKEN token (`name:token` in the secret; send the token part).",
});

admin.all("/v1/admin/pricing", allowOnly("GET"));
admin.all("/v1/admin/pricing/:model", allowOnly("GET", "PUT", "DELETE"));
admin.all("/v1/admin/pricing/:model/history", allowOnly("GET"));
admin.all("/v1/admin/pricing/:model/rollback", allowOnly("POST"));
admin.all("/v1/admin/config", allowOnly("GET", "PUT"));
admin.all("/v1/admin/config/history", allowOnly("GET"));
admin.all("/v1/admin/config/rollback", allowOnly("POST"));
