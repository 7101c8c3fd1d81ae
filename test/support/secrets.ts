// Test-only credentials (never real secrets). vitest.config.ts sets the same
// ADMIN_TOKEN for the worker under test; a test checks they agree.

/** Alice's and Bob's admin tokens, as the tests present them. */
export const ALICE_TOKEN = "alice-test-token-0123456789";
export const BOB_TOKEN = "bob-test-token-0123456789";

/** ADMIN_TOKEN as the worker under test sees it. */
export const TEST_ADMIN_TOKEN = `ops-alice:${ALICE_TOKEN},ops-bob:${BOB_TOKEN}`;

/** Gate keys, for tests that set GATE_API_KEYS. */
export const PROD_KEY = "prod-gate-key-0123456789";
export const STAGING_KEY = "staging-gate-key-0123456789";
export const TEST_GATE_API_KEYS = `agents-prod:${PROD_KEY},agents-staging:${STAGING_KEY}`;

/** Decision id keys (DECISION_ID_KEY, DECISION_ID_KEY_PREVIOUS), for tests that sign ids. */
export const DECISION_KEY = "decision-id-test-key-0123456789abcdef";
export const DECISION_KEY_OLD = "decision-id-old-test-key-0123456789";
