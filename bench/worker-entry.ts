import app from "../src/index";

// The outcomes ledger's class, which wrangler.toml binds: the gate writes to it as in production.
export { LedgerShard } from "../src/index";
import { pricingCacheStats } from "../src/store/read";

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

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Response | Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === "/__bench/echo") return echo(request);
    if (pathname === "/__bench/stats") {
      const total = [...readsByKey.values()].reduce((sum, count) => sum + count, 0);
      return Response.json({ kv_reads: total, kv_reads_by_key: Object.fromEntries(readsByKey), cache: pricingCacheStats() });
    }
    return app.fetch(request, wrapped(env), ctx);
  },
};
