/**
 * @module proxy/constants
 *
 * The proxy's names and limits, free of imports, so the front door (loaded
 * at startup) and the OpenAPI document can name them without loading the
 * proxy itself.
 */

/** The header a client names its tenant in. */
export const GATE_KEY_HEADER = "x-offload-gate-key";

/** The header a client names its session in. */
export const SESSION_HEADER = "x-offload-session-id";

/**
 * Largest request body passed on: Anthropic's documented limit for the
 * Messages API (32 MB). A larger one would be refused upstream anyway; here
 * it is refused before any of it is sent.
 */
export const MAX_PROXY_BODY_BYTES = 32_000_000;
