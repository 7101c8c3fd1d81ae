import { exports } from "cloudflare:workers";
import { hc } from "hono/client";
import { beforeEach, describe, expect, expectTypeOf, it } from "vitest";
import type { AppType } from "../../src/index";
import { EXAMPLE_A, OPUS, putRow, resetState } from "../support/helpers";

// The typed client, calling the real worker in workerd instead of the network.
const client = hc<AppType>("http://gate.test", {
  fetch: (input: RequestInfo | URL, init?: RequestInit) => exports.default.fetch(new Request(input, init)),
});

beforeEach(async () => {
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});

describe("hc<AppType>", () => {
  it("posts a typed body to /v1/gate and reads a typed decision", async () => {
    const res = await client.v1.gate.$post({
      json: EXAMPLE_A,
    });
    expect(res.status).toBe(200);
    if (res.status !== 200) throw new Error(`unexpected ${res.status}`);
    const decision = await res.json();
    expectTypeOf(decision.fire).toEqualTypeOf<boolean>();
    expectTypeOf(decision.net_saving_usd).toEqualTypeOf<number>();
    expectTypeOf(decision.inputs.horizon).toEqualTypeOf<number>();
    expect(decision.fire).toBe(true);
    expect(decision.net_saving_usd).toBe(0.38925000000000004);
    expect(decision.reason_code).toBe("net_positive");
    expect(decision.priced_as?.model).toBe("claude-opus-4-6");
  });

  it("reads the documented error shape from a 400", async () => {
    const res = await client.v1.gate.$post({
      json: { model_name: "claude-opus-4-6", output_tokens: 20_000, horizon: 1.5 },
    });
    expect(res.status).toBe(400);
    if (res.status !== 400) throw new Error(`unexpected ${res.status}`);
    const body = await res.json();
    expectTypeOf(body.error.issues).toEqualTypeOf<{ path: string; message: string }[]>();
    expect(body.error.issues).toEqual([{ path: "horizon", message: "must be an integer ≥ 0" }]);
  });

  it("types GET /healthz", async () => {
    const res = await client.healthz.$get();
    const body = await res.json();
    expectTypeOf(body.status).toEqualTypeOf<"ok">();
    expect(body).toEqual({ status: "ok", service: "offload-gate" });
  });

  it("refuses at compile time a body the schema would refuse", () => {
    const wrongType = () =>
      // @ts-expect-error horizon is a number, not a string
      client.v1.gate.$post({ json: { model_name: "claude-opus-4-6", output_tokens: 20_000, horizon: "4" } });
    const missingModel = () =>
      // @ts-expect-error model_name is required
      client.v1.gate.$post({ json: { output_tokens: 20_000 } });
    expect(typeof wrongType).toBe("function");
    expect(typeof missingModel).toBe("function");
    expect(client.v1.gate.$url().pathname).toBe("/v1/gate");
  });
});
