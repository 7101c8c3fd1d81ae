import { beforeEach, describe, expect, it } from "vitest";
import { mergePatch } from "../../../src/storage/write/merge-patch";
import { adminCall } from "../../support/admin-helpers";
import { bearer, call, postGate, resetState } from "../../support/helpers";
import { ALICE_TOKEN } from "../../support/secrets";

// The seeded gpt-5 row (pricing.seed.json), lifecycle and all.
const GPT5 = {
  input: 1.25,
  output: 10,
  cache_read: 0.125,
  cache_write: 1.25,
  aliases: ["gpt-5-2025-08-07"],
  provider: "openai",
  deprecated_at: "2026-06-11",
  retires_at: "2099-12-11",
  replaced_by: "gpt-5.6-sol",
};

const patch = (model: string, body: string, type = "application/merge-patch+json") =>
  call(`/v1/admin/pricing/${model}`, {
    method: "PATCH",
    headers: { ...bearer(ALICE_TOKEN), "content-type": type },
    body,
  });

beforeEach(async () => {
  await resetState();
  expect((await adminCall("PUT", "/v1/admin/pricing/gpt-5", GPT5)).status).toBe(200);
});

describe("PUT /v1/admin/pricing/:model over a richer row", () => {
  it("keeps replacing the whole row, and warns naming each field it drops", async () => {
    const res = await adminCall("PUT", "/v1/admin/pricing/gpt-5", {
      input: 1.5,
      output: 10,
      cache_read: 0.125,
      aliases: ["gpt-5-2025-08-07"],
    });
    expect(res.status).toBe(200);
    const body = await res.json<{ row: object; changed: boolean; warnings: { path: string; message: string }[] }>();
    expect(body.changed).toBe(true);
    expect(body.row).toEqual({ input: 1.5, output: 10, cache_read: 0.125, aliases: ["gpt-5-2025-08-07"] });
    expect(body.warnings.map((w) => w.path)).toEqual([
      "cache_write",
      "provider",
      "deprecated_at",
      "retires_at",
      "replaced_by",
    ]);
    expect(body.warnings[0]?.message).toBe(
      "is dropped: the stored row has 1.25 and this write has none (a PUT replaces the whole row; PATCH /v1/admin/pricing/{model} changes only the fields it names)",
    );
  });

  it("warns when a PUT drops where the figures come from (source_note, source, verified_at), and a PATCH of the schedule keeps them", async () => {
    const noted = {
      input: 0.75,
      output: 3.75,
      cache_read: 0.075,
      provider: "google",
      source: "https://ai.google.dev/gemini-api/docs/pricing",
      verified_at: "2026-12-01",
      source_note: "Google's Gemini API pricing page",
    };
    await adminCall("PUT", "/v1/admin/pricing/noted", noted);
    const scheduled = [{ effective_at: "2027-01-01T00:00:00Z", input: 1.5, output: 7.5 }];
    const put = await (
      await adminCall("PUT", "/v1/admin/pricing/noted", {
        input: 0.75,
        output: 3.75,
        cache_read: 0.075,
        provider: "google",
        scheduled,
      })
    ).json<any>();
    expect(put.warnings.map((w: { path: string }) => w.path).sort()).toEqual(["source", "source_note", "verified_at"]);
    await adminCall("PUT", "/v1/admin/pricing/noted", noted);
    const patched = await (await patch("noted", JSON.stringify({ scheduled }))).json<any>();
    expect(patched.warnings).toEqual([]);
    expect(patched.row).toMatchObject({ source_note: noted.source_note, scheduled });
  });

  it("warns for a long-context price dropped from a kept tier, and not for a field the stored row lacked", async () => {
    const tiered = { input: 3, output: 15, long_context: { threshold_tokens: 200_000, input: 6, output: 22.5 } };
    await adminCall("PUT", "/v1/admin/pricing/tiered", tiered);
    const res = await adminCall("PUT", "/v1/admin/pricing/tiered", {
      ...tiered,
      long_context: { threshold_tokens: 200_000, input: 6 },
      cache_read: 0.3,
    });
    expect((await res.json<{ warnings: { path: string }[] }>()).warnings.map((w) => w.path)).toEqual([
      "long_context.output",
    ]);
  });
});

describe("PATCH /v1/admin/pricing/:model", () => {
  it("changes one price and keeps every other field, audited as a version", async () => {
    const res = await patch("gpt-5", '{"input":1.5}');
    expect(res.status).toBe(200);
    const body = await res.json<Record<string, any>>();
    expect(body).toMatchObject({ model: "gpt-5", changed: true, version: 2, warnings: [] });
    expect(body.row).toEqual({ ...GPT5, input: 1.5 });
    const history = await (await adminCall("GET", "/v1/admin/pricing/gpt-5/history")).json<Record<string, any>>();
    expect(history.versions[0]).toMatchObject({
      version: 2,
      by: "ops-alice",
      before: GPT5,
      after: { ...GPT5, input: 1.5 },
    });
    // Served at once, and undone by a rollback like any write.
    expect(
      (await (await postGate({ model_name: "gpt-5", output_tokens: 20_000 })).json<Record<string, any>>()).priced_as
        .input,
    ).toBe(1.5);
    const rollback = await adminCall("POST", "/v1/admin/pricing/gpt-5/rollback", { version: 1 });
    expect((await rollback.json<Record<string, any>>()).row).toEqual(GPT5);
  });

  it("takes application/json too, removes a field set to null, and merges a long-context tier", async () => {
    const res = await patch(
      "gpt-5",
      '{"cache_write":null,"long_context":{"threshold_tokens":272000,"input":2.5}}',
      "application/json",
    );
    const { cache_write: _gone, ...rest } = GPT5;
    const body = await res.json<Record<string, any>>();
    expect(body.row).toEqual({ ...rest, long_context: { threshold_tokens: 272_000, input: 2.5 } });
    expect(body.warnings.map((w: { path: string }) => w.path)).toEqual(["cache_write"]);
    const merged = await (await patch("gpt-5", '{"long_context":{"output":20}}')).json<Record<string, any>>();
    expect(merged.row.long_context).toEqual({ threshold_tokens: 272_000, input: 2.5, output: 20 });
  });

  it("records nothing when the patch changes nothing", async () => {
    const body = await (await patch("gpt-5", '{"input":1.25}')).json<Record<string, any>>();
    expect(body).toMatchObject({ changed: false, version: 1 });
  });

  it("names the field when the merged row is invalid, and writes nothing", async () => {
    for (const [text, path] of [
      ['{"input":-1}', "input"],
      ['{"output":null}', "output"],
      ['{"inptu":2}', "inptu"],
      ['{"__proto__":{"input":0}}', "__proto__"],
    ] as const) {
      const res = await patch("gpt-5", text);
      expect(res.status, text).toBe(400);
      const { error } = await res.json<{ error: { code: string; issues: { path: string }[] } }>();
      expect(error.code).toBe("invalid_request");
      expect(error.issues.map((issue) => issue.path)).toEqual([path]);
    }
    expect((await (await adminCall("GET", "/v1/admin/pricing/gpt-5")).json<Record<string, any>>()).row).toEqual(GPT5);
  });

  it("refuses a body that is not an object, a missing row (404), and another media type (415)", async () => {
    for (const text of ["[]", '"x"', "null", "1.5"]) {
      const res = await patch("gpt-5", text);
      expect(res.status, text).toBe(400);
      expect((await res.json<{ error: { issues: { message: string }[] } }>()).error.issues[0]?.message).toBe(
        "must be a JSON object: the fields to change, null to remove one",
      );
    }
    const missing = await patch("no-such-model", '{"input":1}');
    expect(missing.status).toBe(404);
    expect((await missing.json<{ error: { message: string } }>()).error.message).toBe(
      "no pricing row for no-such-model; create it with PUT /v1/admin/pricing/no-such-model",
    );
    expect((await patch("gpt-5", '{"input":1}', "text/plain")).status).toBe(415);
    expect(
      (
        await call("/v1/admin/pricing/gpt-5", {
          method: "PATCH",
          headers: { "content-type": "application/json" },
          body: "{}",
        })
      ).status,
    ).toBe(401);
  });
});

describe("mergePatch (RFC 7386)", () => {
  it("follows the RFC's examples", () => {
    // RFC 7386 § 3, the example and a few of Appendix A's cases.
    expect(mergePatch({ a: "b", c: { d: "e", f: "g" } }, { a: "z", c: { f: null } })).toEqual({
      a: "z",
      c: { d: "e" },
    });
    expect(mergePatch({ a: [{ b: "c" }] }, { a: [1] })).toEqual({ a: [1] });
    expect(mergePatch(["a", "b"], { a: "b" })).toEqual({ a: "b" });
    expect(mergePatch({ a: "foo" }, null)).toBeNull();
    expect(mergePatch({}, { a: { bb: { ccc: null } } })).toEqual({ a: { bb: {} } });
  });

  it("keeps __proto__ a plain key", () => {
    const merged = mergePatch({}, JSON.parse('{"__proto__":{"polluted":1}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(Object.keys(merged)).toEqual(["__proto__"]);
  });
});
