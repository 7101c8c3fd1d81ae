import { OpenAPIHono } from "@hono/zod-openapi";
import { fieldIssues } from "../../../gate";
import type { AppEnv } from "../../../http";
import { invalidRequest } from "../../../http";

/**
 * Makes an app (or a sub-app) whose request validation answers with the
 * one error shape: every route module starts here.
 *
 * @example
 * export const health = createApp().get("/healthz", (c) => c.json({ status: "ok" }));
 */
export function createApp() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw invalidRequest(fieldIssues(result.error));
    },
  });
}
