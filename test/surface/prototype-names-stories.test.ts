import { reset } from "cloudflare:test";
import { env as testEnv } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { parseLearned } from "../../src/storage/schemas/learning-schema";
import { adminCall } from "../support/admin-helpers";
import { OPUS, putRow, resetState } from "../support/helpers";
import { callWorker } from "../support/ledger-fixtures";

// Names an object lookup finds on Object.prototype (or that set a prototype).
const BUILT_IN = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"];
const ROLES = ["tool", "model", "session", "tenant"] as const;
type Role = (typeof ROLES)[number];
const KEY = "built-in-names-gate-key-0123456789";

/** The names of one run: `name` in the role under test, ordinary names elsewhere. */
function namesFor(role: Role, name: string) {
  return {
    tool: role === "tool" ? name : "read_file",
    model: role === "model" ? name : "claude-opus-4-6",
    session: role === "session" ? name : "s1",
    tenant: role === "tenant" ? name : "acme",
  };
}

/** What differs between two runs of the same story: ids, clocks, the name under test, and the last bits of sums. */
function normalized(text: string, name: string): unknown {
  // `queried` counts the shards the tenant wrote, which its session and tenant names hash to.
  const volatile =
    /^(decision_id|computed_at|since|at|window|from|to|changed_at|version|refreshed_at|took_ms|duration_ms|queried)$/;
  return JSON.parse(
    text.replaceAll(`"${name}"`, '"t1"').replaceAll(`:${name}`, ":t1").replaceAll(`=${name}`, "=t1"),
    (key, value) =>
      // Sums over sessions sorted by id may add in another order: equal to 12 digits.
      volatile.test(key) ? "·" : typeof value === "number" ? Number(value.toPrecision(12)) : value,
  );
}

/**
 * One tenant's whole story with `name` in one role: a priced model, fired
 * decisions and their outcomes, a learning refresh, a gate call and a batch
 * on the learned value, the views, a breaker override, and the reports.
 * Every answer is kept, status and body.
 */
async function story(role: Role, name: string): Promise<Array<{ step: string; status: number; body: unknown }>> {
  await reset();
  await resetState();
  const n = namesFor(role, name);
  // Exploration draws its sessions by a hash of the names: off, so the stories compare names, not dice.
  await testEnv.PRICING.put("config:gate", JSON.stringify({ learning_explore_fraction: 0 }));
  const env = { GATE_API_KEYS: `${n.tenant}:${KEY}` } as Partial<Env>;
  const headers = { authorization: `Bearer ${KEY}` };
  const steps: Array<{ step: string; status: number; body: unknown }> = [];
  const keep = async (step: string, res: Response) => {
    steps.push({ step, status: res.status, body: normalized(await res.text(), name) });
    return steps.at(-1)!;
  };
  const gate = (session: string) => ({
    model_name: n.model,
    output_tokens: 20_000,
    horizon: 4,
    recall_probability: 0.3,
    tool_name: n.tool,
    session_id: session,
  });
  const tenant = encodeURIComponent(n.tenant);

  await putRow(n.model, OPUS);
  const items = [];
  for (let i = 0; i < 4; i++) {
    const res = await callWorker("/v1/gate", { json: gate(i === 0 ? n.session : `${n.session}-${i}`), headers }, env);
    const body = await res.clone().json<any>();
    await keep(`gate ${i}`, res);
    if (body.fire)
      items.push({ decision_id: body.decision_id, turns_after: 3 + i, recalled: i % 2 === 0, cached_turns: 2 });
  }
  await keep("outcomes", await callWorker("/v1/outcomes", { json: { items }, headers }, env));
  const bill = {
    session_id: n.session,
    model_name: n.model,
    turns: 6,
    usage: { input_tokens: 9_000, output_tokens: 800, cache_read_input_tokens: 40_000 },
  };
  await keep("sessions", await callWorker("/v1/sessions", { json: { items: [bill] }, headers }, env));
  await keep("refresh", await adminCall("POST", `/v1/admin/learning/refresh?tenant=${tenant}`, {}));
  await keep("gate on the learned value", await callWorker("/v1/gate", { json: gate(`${n.session}-9`), headers }, env));
  await keep(
    "batch on the learned value",
    await callWorker("/v1/gate/batch", { json: { items: [gate(n.session), gate("other")] }, headers }, env),
  );
  await keep("learning view", await callWorker("/v1/learning", { method: "GET", headers }, env));
  await keep("admin learning view", await adminCall("GET", `/v1/admin/learning?tenant=${tenant}`, undefined));
  await keep(
    "breaker override",
    await adminCall("PUT", `/v1/admin/learning/breakers/${tenant}`, { tool_name: n.tool, state: "closed" }),
  );
  await keep("learning view after the override", await callWorker("/v1/learning", { method: "GET", headers }, env));
  await keep("second refresh", await adminCall("POST", `/v1/admin/learning/refresh?tenant=${tenant}`, {}));
  await keep(
    "savings",
    await callWorker(`/v1/savings?tool_name=${encodeURIComponent(n.tool)}`, { method: "GET", headers }, env),
  );
  await keep("admin savings", await adminCall("GET", `/v1/admin/savings?tenant=${tenant}`, undefined));
  await keep(
    "breaker back to the rule",
    await adminCall("PUT", `/v1/admin/learning/breakers/${tenant}`, { tool_name: n.tool, state: "auto" }),
  );
  return steps;
}

beforeEach(async () => {
  await reset();
  await resetState();
});

describe("a name of a built-in object property", () => {
  for (const role of ROLES) {
    const names = role === "model" ? BUILT_IN.filter((name) => name !== "__proto__") : BUILT_IN;
    it.each(names)(
      `as a ${role} name (%s), every route, the learner, the views and the breakers answer as they do for t1`,
      async (name) => {
        const reference = await story(role, "t1");
        expect(reference.every((step) => step.status < 500)).toBe(true);
        // The story really exercises the learner: decisions fired and a value was published.
        expect(reference.find((step) => step.step === "refresh")?.body).toMatchObject({ status: "published" });
        const named = await story(role, name);
        expect(named).toEqual(reference);
      },
    );
  }

  it("refuses __proto__ as a model name with a 400 naming model_name, as before", async () => {
    const res = await callWorker("/v1/gate", { json: { model_name: "__proto__", output_tokens: 20_000 } });
    expect(res.status).toBe(400);
    expect((await res.json<any>()).error.issues).toContainEqual({ path: "model_name", message: "is a reserved name" });
  });
});

describe("a stored learned value keyed by such names", () => {
  const sums = { p_n: 2, p_r: 1, h_n: 2, h_sum: 8, h_sumsq: 34, q_n: 2, q_cached: 3, q_turns: 6 };
  const value = (tools: string) =>
    `{"version":1,"tenant":"acme","computed_at":1,"window":{"from":0,"to":1},"tenant_sums":${JSON.stringify(sums)},"tools":${tools},"breakers":{}}`;

  it("keeps a tool named __proto__ as an own key, with no prototype on the record", () => {
    const { value: parsed } = parseLearned(
      "acme",
      value(`{"__proto__":{"sums":${JSON.stringify(sums)},"models":{"constructor":${JSON.stringify(sums)}}}}`),
    );
    expect(Object.getPrototypeOf(parsed!.tools)).toBeNull();
    expect(Object.keys(parsed!.tools)).toEqual(["__proto__"]);
    expect(Object.hasOwn(parsed!.tools["__proto__"]!.models, "constructor")).toBe(true);
  });

  it("refuses an invalid entry under __proto__, which a plain record would skip unchecked", () => {
    const { value: parsed, problem } = parseLearned("acme", value(`{"__proto__":{"sums":{"p_n":-1},"models":{}}}`));
    expect(parsed).toBeNull();
    expect(problem).toMatch(/tools\.__proto__\.sums/);
  });
});
