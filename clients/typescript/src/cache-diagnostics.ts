/**
 * Asking the providers why a call missed the cache, for the adapters that
 * build the request: Anthropic's cache diagnostics (`diagnostics:
 * { previous_message_id }` with the `cache-diagnosis-2026-04-07` beta) and
 * OpenAI's prompt cache diagnostics (`prompt_cache_options.
 * comparison_response_id`, Responses API, GPT-5.6 and later). Each compares
 * a request with the previous response of the same conversation; the answer
 * goes on the session's next observed call, where the ledger splits a miss
 * right after one of the gate's own rewrites from the rest
 * (docs/api/ledger.md, `cache_misses`).
 *
 * A provider whose SDK has no option for it is asked through a `fetch`
 * wrapper given to its client; the answers wait per session until the
 * adapter observes the call's usage.
 */
import type { ObservedUsage } from "./session-ledger.js";
import type { OffloadSession } from "./session.js";

/** The beta header value Anthropic's cache diagnostics take. */
export const ANTHROPIC_DIAGNOSTICS_BETA = "cache-diagnosis-2026-04-07";

type Diagnostics = NonNullable<ObservedUsage["diagnostics"]>;
type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

interface Asked {
  lastId: string | null;
  pending: Diagnostics[];
}
const asked = new WeakMap<OffloadSession, Asked>();
const state = (session: OffloadSession): Asked => {
  const known = asked.get(session);
  if (known) return known;
  const fresh: Asked = { lastId: null, pending: [] };
  asked.set(session, fresh);
  return fresh;
};

/**
 * The diagnostics a wrapped client received for the session's oldest call
 * not yet observed (undefined: none asked, or none answered).
 *
 * @example
 * session.observe({ ...usage, diagnostics: takeDiagnostics(session) });
 */
export function takeDiagnostics(session: OffloadSession): Diagnostics | undefined {
  return asked.get(session)?.pending.shift();
}

/**
 * OpenAI's `prompt_cache_diagnostics` in the ledger's (Anthropic's) shape: a
 * `cache_miss` with its missed tokens, anything else no divergence.
 *
 * @example
 * fromOpenAI({ type: "cache_miss", reason: "tools_changed", cache_missed_tokens: 4_096 })
 * // { cache_miss_reason: { type: "tools_changed", cache_missed_input_tokens: 4_096 } }
 */
export function fromOpenAI(diagnostics: unknown): Diagnostics | undefined {
  if (diagnostics === null || typeof diagnostics !== "object") return undefined;
  const d = diagnostics as { type?: unknown; reason?: unknown; cache_missed_tokens?: unknown };
  if (d.type !== "cache_miss") return { cache_miss_reason: null };
  return {
    cache_miss_reason: {
      type: typeof d.reason === "string" ? d.reason : "cache_miss",
      cache_missed_input_tokens: typeof d.cache_missed_tokens === "number" ? d.cache_missed_tokens : null,
    },
  };
}

/**
 * A `fetch` for an Anthropic client (`createAnthropic({ fetch })`, `new
 * Anthropic({ fetch })`) that asks each Messages request for cache
 * diagnostics against the session's previous response, and keeps the answer
 * (`diagnostics` of the response, or of a stream's `message_start`) for the
 * adapter's next observed call. Any other request goes through untouched;
 * nothing it does throws into the call.
 *
 * @example
 * const anthropic = createAnthropic({ fetch: anthropicDiagnosticsFetch(session) });
 */
export function anthropicDiagnosticsFetch(session: OffloadSession, base: Fetch = globalThis.fetch): Fetch {
  const books = state(session);
  return async (input, init) => {
    const body = bodyToAsk(input, init, /\/v1\/messages$/);
    if (body === null) return base(input, init);
    body.diagnostics = { previous_message_id: books.lastId };
    const headers = new Headers(init?.headers);
    const beta = headers.get("anthropic-beta");
    headers.set("anthropic-beta", beta ? `${beta},${ANTHROPIC_DIAGNOSTICS_BETA}` : ANTHROPIC_DIAGNOSTICS_BETA);
    const response = await base(input, { ...init, headers, body: JSON.stringify(body) });
    await readAnswer(response, body.stream === true, "message_start", (message) => {
      const m = (message as { message?: unknown }).message ?? message;
      const { id, diagnostics } = m as { id?: unknown; diagnostics?: unknown };
      if (typeof id === "string") books.lastId = id;
      if (diagnostics !== undefined && typeof diagnostics === "object")
        books.pending.push((diagnostics ?? { cache_miss_reason: null }) as Diagnostics);
    });
    return response;
  };
}

/**
 * A `fetch` for an OpenAI client (`new OpenAI({ fetch })`, as the OpenAI
 * Agents SDK's Responses model uses it) that asks each Responses request for
 * prompt cache diagnostics against the session's previous response
 * (`prompt_cache_options.comparison_response_id`), and keeps the answer
 * (`prompt_cache_diagnostics`, of the response or of a stream's
 * `response.completed`) for the adapter's next observed call.
 *
 * @example
 * setDefaultOpenAIClient(new OpenAI({ fetch: openaiDiagnosticsFetch(session) }));
 */
export function openaiDiagnosticsFetch(session: OffloadSession, base: Fetch = globalThis.fetch): Fetch {
  const books = state(session);
  return async (input, init) => {
    const body = bodyToAsk(input, init, /\/responses$/);
    if (body === null) return base(input, init);
    if (books.lastId !== null) {
      const options = (body.prompt_cache_options ?? {}) as Record<string, unknown>;
      body.prompt_cache_options = { ...options, comparison_response_id: books.lastId };
    }
    const response = await base(input, { ...init, body: JSON.stringify(body) });
    await readAnswer(response, body.stream === true, "response.completed", (event) => {
      const r = ((event as { response?: unknown }).response ?? event) as {
        id?: unknown;
        prompt_cache_diagnostics?: unknown;
      };
      if (typeof r.id === "string") books.lastId = r.id;
      const diagnostics = fromOpenAI(r.prompt_cache_diagnostics);
      if (diagnostics) books.pending.push(diagnostics);
    });
    return response;
  };
}

/**
 * The parsed JSON body of a POST to a path the pattern matches, to add the
 * ask to; null for anything else (left as it was).
 */
function bodyToAsk(input: string | URL | Request, init: RequestInit | undefined, path: RegExp) {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  if ((init?.method ?? "GET").toUpperCase() !== "POST" || typeof init?.body !== "string") return null;
  if (!path.test(new URL(url).pathname)) return null;
  try {
    const body = JSON.parse(init.body) as unknown;
    return body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * Reads the answer from a copy of the response: the JSON body whole (before
 * the caller reads it), or a stream's first event of `event` type (as it
 * flows, in the background). Faults are dropped: no answer, no diagnostics.
 */
async function readAnswer(
  response: Response,
  stream: boolean,
  event: string,
  take: (answer: unknown) => void,
): Promise<void> {
  if (!response.ok) return;
  const copy = response.clone();
  if (!stream) {
    await copy
      .json()
      .then(take)
      .catch(() => {});
    return;
  }
  void (async () => {
    const reader = copy.body?.getReader();
    if (!reader) return;
    const decoder = new TextDecoder();
    let buffered = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffered += decoder.decode(value, { stream: true });
      let end = buffered.indexOf("\n\n");
      while (end >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const data = block
          .split("\n")
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).trim())
          .join("\n");
        const parsed = data ? (JSON.parse(data) as { type?: unknown }) : null;
        if (parsed?.type === event) {
          take(parsed);
          await reader.cancel();
          return;
        }
        end = buffered.indexOf("\n\n");
      }
    }
  })().catch(() => {});
}
