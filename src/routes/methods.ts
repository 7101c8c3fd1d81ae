import type { Env, Hono } from "hono";
import { allowOnly } from "../http";

/**
 * Every path the worker serves and the methods it takes there; any other
 * method gets 405 with an Allow header. The one list: a new route adds its
 * line here.
 */
export const ALLOWED_METHODS: Readonly<Record<string, readonly string[]>> = {
  "/healthz": ["GET", "HEAD"],
  "/v1/gate": ["POST"],
  "/v1/gate/batch": ["POST"],
  "/v1/gate/curve": ["POST"],
  "/v1/plan": ["POST"],
  "/v1/context-management": ["POST"],
  "/v1/admin/pricing": ["GET"],
  "/v1/admin/pricing/:model": ["GET", "PUT", "PATCH", "DELETE"],
  "/v1/admin/pricing/:model/history": ["GET"],
  "/v1/admin/pricing/:model/rollback": ["POST"],
  "/v1/admin/aliases": ["GET"],
  "/v1/admin/aliases/:alias": ["DELETE"],
  "/v1/admin/config": ["GET", "PUT"],
  "/v1/admin/config/history": ["GET"],
  "/v1/admin/config/rollback": ["POST"],
  "/v1/admin/pending": ["GET"],
  "/v1/admin/pending/:model": ["DELETE"],
  "/v1/admin/pending/:model/approve": ["POST"],
  "/v1/admin/pending/:model/reject": ["POST"],
  "/v1/outcomes": ["POST"],
  "/v1/sessions": ["POST"],
  "/v1/savings": ["GET"],
  "/v1/admin/savings": ["GET"],
  "/v1/learning": ["GET"],
  "/v1/admin/learning": ["GET"],
  "/v1/admin/learning/refresh": ["POST"],
  "/v1/admin/learning/breakers/:tenant": ["PUT"],
  "/v1/admin/learning/breakers/:tenant/history": ["GET"],
  "/v1/admin/learning/breakers/:tenant/rollback": ["POST"],
  "/v1/admin/learning/acks/:tenant": ["PUT"],
  "/v1/admin/learning/acks/:tenant/history": ["GET"],
  "/v1/admin/learning/acks/:tenant/rollback": ["POST"],
  "/": ["GET", "HEAD"],
  "/console/replay": ["GET", "HEAD"],
  "/docs": ["GET", "HEAD"],
  "/openapi.json": ["GET", "HEAD"],
};

/**
 * Answers 405 on every path of ALLOWED_METHODS for the methods it does not
 * take. Call it after every route is registered.
 *
 * @example
 * refuseOtherMethods(app);
 */
export function refuseOtherMethods<E extends Env>(app: Hono<E>): void {
  for (const [path, methods] of Object.entries(ALLOWED_METHODS)) app.all(path, allowOnly(...methods));
}
