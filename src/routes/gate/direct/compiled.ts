/**
 * The gate's request bodies checked by the validators compiled from their
 * zod schemas at build time (./validators.generated.js, `npm run
 * validators`), then by the refinements JSON Schema cannot say, in plain
 * code shared with the zod schema (./cross-field.ts, the reserved model
 * names). A body both accept is the request as zod would hand it over; any
 * other answers undefined, and the caller asks zod for the error answer. So
 * the common case builds no zod schema, and an error is worded by zod alone. test/gate/compiled-request.test.ts holds the two
 * to the same verdict over the fuzz corpus and the conformance vectors.
 *
 * @module
 */
import type { z } from "@hono/zod-openapi";
import { RESERVED_MODEL_NAMES } from "../../../storage/rules";
import { gateRequestIssues } from "../../kernel";
import type { GateBatchRequestSchema, GateRequest } from "../schemas";
import { gateBatchRequest, gateRequest } from "./validators.generated.js";

/** POST /v1/gate/batch's envelope, as its zod schema hands it over. */
export type GateBatchEnvelope = z.output<typeof GateBatchRequestSchema>;

/**
 * A gate request the compiled checks accept, or undefined: ask zod.
 *
 * The body is handed on as parsed: zod's copy holds the same values (its
 * keys in the schema's order, which nothing downstream reads; every reader
 * names its fields).
 *
 * @example
 * compiledGateRequest({ model_name: "gpt-5", output_tokens: 20_000 }) // the same object
 * compiledGateRequest({ model_name: "gpt-5" }) // undefined: zod says why
 */
export function compiledGateRequest(body: unknown): GateRequest | undefined {
  if (!gateRequest(body)) return undefined;
  const request = body as GateRequest;
  if (RESERVED_MODEL_NAMES.includes(request.model_name) || gateRequestIssues(request).length > 0) return undefined;
  return request;
}

/**
 * POST /v1/gate/batch's envelope when the compiled check accepts it (its
 * schema has no refinements), or undefined: ask zod. Each item is then a
 * gate request of its own.
 *
 * @example
 * compiledBatchEnvelope({ items: [] }) // the same object
 * compiledBatchEnvelope({ items: {} }) // undefined
 */
export function compiledBatchEnvelope(body: unknown): GateBatchEnvelope | undefined {
  return gateBatchRequest(body) ? (body as GateBatchEnvelope) : undefined;
}
