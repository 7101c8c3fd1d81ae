import { createApp } from "../kernel/openapi";
import { reports } from "./reports";
import { savings } from "./savings";

/**
 * The outcomes ledger's API: agents report outcomes and session bills, and
 * read what the gate saved them. Authentication is wired in src/index.ts:
 * gate keys for /v1/outcomes, /v1/sessions and /v1/savings, the admin token
 * for /v1/admin/savings.
 *
 * @example
 * app.route("/", ledger);
 */
export const ledger = createApp().route("/", reports).route("/", savings);

export type { SavingsReportSchema } from "./schema";
