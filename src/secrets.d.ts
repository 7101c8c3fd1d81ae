// The Worker's optional secrets, typed by hand, so the committed types never
// depend on a developer's .dev.vars (`npm run types` reads none:
// --env-file=/dev/null). Both are optional (unset ADMIN_TOKEN: admin routes
// refuse everyone; unset GATE_API_KEYS: the gate is open). They go in with
// the deploy (`wrangler deploy --secrets-file`), locally in .dev.vars.
// Format of both: `name:token[,name:token...]`.
interface OffloadGateSecrets {
  /** Admin bearer tokens, `name:token` comma-separated; the name is recorded in pricing history. */
  ADMIN_TOKEN?: string;
  /** Gate caller keys, `name:key` comma-separated; the name is the tenant. */
  GATE_API_KEYS?: string;
  /**
   * The key decision ids are signed with (HMAC-SHA-256; docs/operations.md
   * § Decision id keys). Unset: ids are issued unsigned and an outcome that
   * arrives before its decision is unknown_decision.
   */
  DECISION_ID_KEY?: string;
  /** The key before the last rotation: still verifies ids, never signs. Remove once the raw window has passed. */
  DECISION_ID_KEY_PREVIOUS?: string;
}
interface Env extends OffloadGateSecrets {}
declare namespace Cloudflare {
  interface Env extends OffloadGateSecrets {}
}
