import app from "../src/index";

// The outcomes ledger's class, which wrangler.toml binds: the gate writes to it as in production.
export { LedgerShard } from "../src/index";
import { pricingCacheStats } from "../src/storage/read";
import { GateRequestSchema } from "../src/routes/gate/schemas/schema";
import { answerJson } from "../src/routes/gate/direct/answer-json";
import { compiledGateRequest } from "../src/routes/gate/direct/compiled";

/**
 * The benchmark's entry: the real app, with its KV binding wrapped so that
 * every read the app makes is counted where it happens, at the binding.
 * GET /__bench/stats reports the count. Never deployed.
 */

const readsByKey = new Map<string, number>();
const wrappedEnvs = new WeakMap<Env, Env>();

function countingKv(kv: KVNamespace): KVNamespace {
  return new Proxy(kv, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== "function") return value;
      if (property !== "get" && property !== "getWithMetadata") return value.bind(target);
      return (key: string, ...rest: unknown[]) => {
        readsByKey.set(String(key), (readsByKey.get(String(key)) ?? 0) + 1);
        return (value as (...args: unknown[]) => unknown).call(target, key, ...rest);
      };
    },
  });
}

// One wrapped env per env object, so the wrapper costs no allocation per request.
function wrapped(env: Env): Env {
  let counted = wrappedEnvs.get(env);
  if (counted === undefined) {
    counted = { ...env, PRICING: countingKv(env.PRICING) };
    wrappedEnvs.set(env, counted);
  }
  return counted;
}

// The size of a gate answer, so the echo route costs the same bytes on the wire.
const ECHO_BODY = JSON.stringify({ padding: "x".repeat(660) });

/**
 * POST /__bench/echo: reads the JSON body and answers 680 bytes of JSON, with
 * no gate work. Against it, the gate's own cost shows apart from the cost of
 * any POST with a body in workerd and in the load generator.
 */
async function echo(request: Request): Promise<Response> {
  await request.json();
  return new Response(ECHO_BODY, { headers: { "content-type": "application/json" } });
}

// The bodies bench/pipeline.mjs posts in process: the HTTP benchmark's gate bodies.
const LOOP_BODY = JSON.stringify({ model_name: "gpt-5", output_tokens: 20_000, horizon: 4, recall_probability: 0.3 });
// As a client over HTTP sends it: with its length, so the body limit reads no stream.
const LOOP_HEADERS = { "content-type": "application/json", "content-length": String(LOOP_BODY.length) };
const LOOP_PATHS: Record<string, { method: string; path: string }> = {
  gate: { method: "POST", path: "/v1/gate" },
  echo: { method: "POST", path: "/__bench/echo" },
  healthz: { method: "GET", path: "/healthz" },
};

// The parts of any JSON POST, each on its own, in the same loop: what a gate
// answer costs to serialise, a Response to build, the body to parse and the
// gate's schema to check (docs/performance.md). The answer is a real one, taken once.
const PARSED = JSON.parse(LOOP_BODY) as unknown;
let answer: unknown;
// As the gate holds it: the row's `priced_as` frozen, one object per row load.
const frozenParts = (body: { priced_as?: object | null }) =>
  body.priced_as ? { ...body, priced_as: Object.freeze(body.priced_as) } : body;
const PARTS: Record<string, () => number> = {
  stringify: () => JSON.stringify(answer).length,
  // The direct path's writer of the same answer, and its compiled check of the same body.
  serialise: () => answerJson(answer as object).length,
  response: () => (new Response("{}", { status: 200, headers: { "content-type": "application/json" } }).ok ? 1 : 0),
  parse: () => ((JSON.parse(LOOP_BODY) as object) === null ? 0 : 1),
  zod: () => (GateRequestSchema.safeParse(PARSED).success ? 1 : 0),
  compiled: () => (compiledGateRequest(PARSED) === undefined ? 0 : 1),
};

/**
 * GET /__bench/loop?route=gate&n=2000: serves `n` requests of one route one
 * after another inside this isolate, without HTTP, and answers when all are
 * done. Timed from outside (time inside an isolate only moves on I/O), it
 * gives the route's in-process cost per request with far less noise than
 * load over sockets: what bench/pipeline.mjs compares between builds.
 */
async function loop(url: URL, env: Env, ctx: ExecutionContext): Promise<Response> {
  const target = LOOP_PATHS[url.searchParams.get("route") ?? ""];
  const n = Math.min(100_000, Number(url.searchParams.get("n") ?? 1000));
  const parts = PARTS[url.searchParams.get("route") ?? ""];
  if (parts !== undefined && n > 0) {
    const init = { method: "POST", headers: LOOP_HEADERS, body: LOOP_BODY };
    answer ??= frozenParts(await (await worker.fetch(new Request("http://127.0.0.1/v1/gate", init), env, ctx)).json());
    let sink = 0;
    for (let i = 0; i < n; i++) sink += parts();
    return Response.json({ n, sink });
  }
  if (target === undefined || !(n > 0))
    return Response.json(
      { error: `route must be one of ${[...Object.keys(LOOP_PATHS), ...Object.keys(PARTS)].join(", ")}` },
      { status: 400 },
    );
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const init: RequestInit =
      target.method === "POST" ? { method: "POST", headers: LOOP_HEADERS, body: LOOP_BODY } : {};
    const request = new Request(`http://127.0.0.1${target.path}`, init);
    const response = await worker.fetch(request, env, ctx);
    bytes += (await response.arrayBuffer()).byteLength;
  }
  return Response.json({ n, bytes });
}

const worker = {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Response | Promise<Response> {
    const url = new URL(request.url);
    const { pathname } = url;
    if (pathname === "/__bench/echo") return echo(request);
    if (pathname === "/__bench/loop") return loop(url, env, ctx);
    if (pathname === "/__bench/stats") {
      const total = [...readsByKey.values()].reduce((sum, count) => sum + count, 0);
      return Response.json({
        kv_reads: total,
        kv_reads_by_key: Object.fromEntries(readsByKey),
        cache: pricingCacheStats(),
      });
    }
    return app.fetch(request, wrapped(env), ctx);
  },
};

export default worker;
