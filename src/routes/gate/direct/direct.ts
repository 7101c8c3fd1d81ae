import type { z } from "@hono/zod-openapi";
import { enforceRateLimit, gateTenant } from "../../../auth";
import { fieldIssues } from "../../../gate";
import {
  ApiError,
  checkJsonHeaders,
  errorResponse,
  invalidJson,
  invalidRequest,
  jsonTextResponse,
  MAX_BODY_BYTES,
  requestPath,
  tooLarge,
  waitUntilFor,
  withBodyDeadline,
} from "../../../http";
import type { DecideContext } from "../../kernel";
import { gateContext } from "../../kernel";
import { answerJson } from "./answer-json";
import { answerBatch } from "./batch";
import { compiledBatchEnvelope, compiledGateRequest } from "./compiled";
import { decideRequest } from "./decide";
import { gateBatchRequestSchema, gateRequestSchema } from "./zod";

/**
 * The gate's two hot routes, POST /v1/gate and POST /v1/gate/batch, served
 * without Hono's request pipeline: the same checks in the same order as the
 * middleware and the validated route (gate key and rate limit, media type,
 * size, JSON, the validator compiled from the same zod schema), the same errors and the same answers,
 * byte for byte, for a fraction of the CPU (docs/performance.md has the
 * profile). The routes stay in the Hono app too: they are what the OpenAPI
 * document describes, and they answer every request this path leaves to
 * them (a percent-encoded path, a body without a declared length, a media
 * type the validator would refuse), so no case needs a second copy of the rules.
 */

// @hono/zod-openapi's media-type gate for a JSON body: a type it refuses
// takes the Hono path, which answers it as it always has.
const JSON_REQUEST = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;

type Answer = (body: unknown, context: DecideContext) => Promise<Response>;

/**
 * A route's answer: its body checked by the validator compiled from the
 * route's own schema (./compiled.ts), then decided. A body it does
 * not accept goes to the zod schema itself, loaded then, so its error answer
 * is the validated route's, byte for byte. The answer is written from its
 * parts (./answer-json.ts), the bytes JSON.stringify would write.
 */
function answerOf<S extends z.ZodType>(
  compiled: (body: unknown) => z.output<S> | undefined,
  schema: () => Promise<S>,
  decide: (body: z.output<S>, context: DecideContext) => Promise<object>,
): Answer {
  return async (body, context) => {
    let data = compiled(body);
    if (data === undefined) {
      const parsed = (await schema()).safeParse(body);
      if (!parsed.success) throw invalidRequest(fieldIssues(parsed.error));
      data = parsed.data;
    }
    return jsonTextResponse(answerJson(await decide(data, context)), 200);
  };
}

const single = answerOf(compiledGateRequest, gateRequestSchema, decideRequest);
const batch = answerOf(compiledBatchEnvelope, gateBatchRequestSchema, answerBatch);

/**
 * Serves a request to one of the gate's hot routes, or answers undefined
 * (before touching anything: no rate-limit charge, no body read) for the
 * app to serve instead.
 *
 * @example
 * const fetch = (request, env, ctx) => directGate(request, env, ctx) ?? app.fetch(request, env, ctx);
 */
export function directGate(
  request: Request,
  env: Env | undefined,
  ctx: ExecutionContext | undefined,
): Promise<Response> | undefined {
  if (request.method !== "POST" || env === undefined) return undefined;
  const path = requestPath(request.url);
  const answer = path === "/v1/gate" ? single : path === "/v1/gate/batch" ? batch : undefined;
  if (answer === undefined) return undefined;
  const { headers } = request;
  const type = headers.get("content-type");
  const length = headers.get("content-length");
  if (type === null || length === null || headers.has("transfer-encoding") || !JSON_REQUEST.test(type))
    return undefined;
  return serve(request, env, ctx, answer, type, length);
}

async function serve(
  request: Request,
  env: Env,
  ctx: ExecutionContext | undefined,
  answer: Answer,
  type: string,
  length: string,
): Promise<Response> {
  try {
    const { headers } = request;
    const tenant = await gateTenant(env.GATE_API_KEYS, headers.get("authorization") ?? undefined);
    await enforceRateLimit(env.GATE_RATE_LIMITER, tenant);
    checkJsonHeaders(type, headers.get("content-encoding") ?? undefined);
    // Hono's body limit reads a declared length as parseInt does.
    if (parseInt(length, 10) > MAX_BODY_BYTES) throw tooLarge();
    // The runtime's own reader, raced against the body deadline (408 past it): a body shorter than its length never ends.
    const text = await withBodyDeadline(request.text()).catch((error: unknown) => {
      throw error instanceof ApiError ? error : invalidJson();
    });
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw invalidJson();
    }
    return await answer(body, gateContext(env, tenant, waitUntilFor(ctx)));
  } catch (error) {
    return errorResponse(error);
  }
}
