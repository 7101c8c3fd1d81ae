import { z } from "@hono/zod-openapi";
import { AGENT_ID_PATTERN, MAX_CALL_INDEX } from "../../../storage/rules";
import { requiredOr, wholeNumber } from "../../kernel/openapi";

/**
 * What a request may tell about the session its output enters
 * (docs/design/economics.md §13): in cache_aware mode, with no horizon
 * given, they pick the session-aware horizon; seed mode accepts and ignores
 * them, so a seed answer is the reference's bit for bit. Spread into
 * GateRequestSchema.
 */
export const SESSION_FIELDS = {
  call_index: wholeNumber(MAX_CALL_INDEX).openapi({
    description:
      "Model calls the session has made before this output (0: the first). cache_aware only reads it: with no horizon given, the horizon is the expected number of calls still to come in a session that has come this far (docs/design/economics.md §13). Ignored in seed mode. Default: 0.",
    example: 12,
  }),
  subagent: z
    .boolean({ error: requiredOr("must be true or false") })
    .optional()
    .openapi({
      description:
        "Whether the session is a subagent's (a sidechain), whose sessions are far shorter than a main session's. cache_aware only reads it, as call_index. Default: both kinds pooled.",
      example: false,
    }),
  agent: z
    .string({ error: requiredOr("must be a string") })
    .regex(AGENT_ID_PATTERN, "must be 1 to 64 of a-z 0-9 . _ -")
    .optional()
    .openapi({
      description:
        "The agent family running the session, as the shipped defaults name them: claude-code, mini-swe-agent, swe-agent, atif; codex, gemini-cli, openhands, aider and any other id are accepted and priced from every family's sessions pooled until calibrated, and the reason says so. cache_aware only reads it, as call_index.",
      example: "claude-code",
    }),
};
