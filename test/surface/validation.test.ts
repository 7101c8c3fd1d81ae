import { beforeEach, describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "../../src/http/guards";
import { bearer, call, EXAMPLE_A, OPUS, postGate, putRow, resetState } from "../support/helpers";
import { ALICE_TOKEN } from "../support/secrets";

interface ErrorBody {
  error: { code: string; message: string; issues: { path: string; message: string }[] };
}

async function expectError(res: Response, status: number, code: string, path?: string): Promise<ErrorBody> {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  const body = await res.json<ErrorBody>();
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe("string");
  if (path !== undefined) expect(body.error.issues.map((issue) => issue.path)).toContain(path);
  return body;
}

beforeEach(async () => {
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});

describe("POST /v1/gate with bad input", () => {
  it("answers 400 invalid_json when the body does not parse", async () => {
    await expectError(await postGate("{not json"), 400, "invalid_json", "");
  });

  it("answers 400 when the body is JSON but not an object", async () => {
    await expectError(await postGate("[1,2]"), 400, "invalid_request", "");
    await expectError(await postGate("null"), 400, "invalid_request", "");
  });

  it("answers 400 naming model_name when it is missing", async () => {
    const { model_name: _omitted, ...rest } = EXAMPLE_A;
    const body = await expectError(await postGate(rest), 400, "invalid_request", "model_name");
    expect(body.error.issues[0]?.message).toBe("is required");
  });

  it("answers 400 naming output_tokens when neither size is given", async () => {
    await expectError(await postGate({ model_name: "claude-opus-4-6" }), 400, "invalid_request", "output_tokens");
  });

  it("answers 400 when output_tokens and output_chars are both given", async () => {
    await expectError(await postGate({ ...EXAMPLE_A, output_chars: 4 }), 400, "invalid_request", "output_chars");
  });

  it.each([
    ["output_tokens", "20000"],
    ["horizon", "4"],
    ["recall_probability", true],
    ["stub_tokens", null],
    ["model_name", 42],
  ])("answers 400 naming %s when it has the wrong type", async (field, value) => {
    await expectError(await postGate({ ...EXAMPLE_A, [field]: value }), 400, "invalid_request", field);
  });

  it.each([
    ["output_tokens", -1],
    ["output_chars", -4],
    ["large_offload_threshold_tokens", -10],
    ["stub_tokens", -200],
    ["recall_input_tokens", -1],
    ["recall_output_tokens", -1],
  ])("answers 400 naming %s when it is negative", async (field, value) => {
    const body = field === "output_chars" ? { model_name: "m", output_chars: value } : { ...EXAMPLE_A, [field]: value };
    await expectError(await postGate(body), 400, "invalid_request", field);
  });

  it("answers 400 when a number is not finite (Python's json.dumps writes NaN and Infinity)", async () => {
    await expectError(await postGate('{"model_name":"m","output_tokens":NaN}'), 400, "invalid_json");
    await expectError(await postGate('{"model_name":"m","output_tokens":Infinity}'), 400, "invalid_json");
    await expectError(await postGate({ ...EXAMPLE_A, output_tokens: 1e309 }), 400, "invalid_request", "output_tokens");
  });

  it.each([[-1], [2.5], [1e7]])("answers 400 when horizon is %d", async (horizon) => {
    const body = await expectError(await postGate({ ...EXAMPLE_A, horizon }), 400, "invalid_request", "horizon");
    expect(body.error.message).toContain("horizon");
  });

  it.each([[-0.01], [1.01], [7]])("answers 400 when recall_probability is %d", async (recall_probability) => {
    const body = await expectError(
      await postGate({ ...EXAMPLE_A, recall_probability }),
      400,
      "invalid_request",
      "recall_probability",
    );
    expect(body.error.issues[0]?.message).toBe("must be between 0 and 1");
  });

  it.each([
    ["stub_tokens", 1.5],
    ["recall_output_tokens", 0.1],
  ])("answers 400 when %s is not an integer", async (field, value) => {
    await expectError(await postGate({ ...EXAMPLE_A, [field]: value }), 400, "invalid_request", field);
  });

  it("answers 400 naming every unknown field, so a typo never falls back to a prior", async () => {
    const body = await expectError(
      await postGate({ ...EXAMPLE_A, horizn: 4, recall_prob: 0.1 }),
      400,
      "invalid_request",
    );
    expect(body.error.issues).toEqual([
      { path: "horizn", message: "is not a known field" },
      { path: "recall_prob", message: "is not a known field" },
    ]);
  });

  it.each([[""], ["has space"], ["x".repeat(129)], ["quote'd"], ["emoji-🙂"], ["new\nline"]])(
    "answers 400 when model_name is %j",
    async (model_name) => {
      await expectError(await postGate({ ...EXAMPLE_A, model_name }), 400, "invalid_request", "model_name");
    },
  );

  it("accepts every character the model-name pattern allows", async () => {
    const res = await postGate({ ...EXAMPLE_A, model_name: "vendor/Model_1.5:beta@2025+x-y" });
    expect(res.status).toBe(200);
  });
});

describe("requests the gate refuses before reading them", () => {
  it("answers 413 when the body is over 96 KiB", async () => {
    const big = JSON.stringify({ ...EXAMPLE_A, model_name: "m", pad: "x".repeat(MAX_BODY_BYTES) });
    await expectError(await postGate(big), 413, "payload_too_large");
  });

  it("answers 415 when the content type is not JSON", async () => {
    const res = await call("/v1/gate", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify(EXAMPLE_A),
    });
    await expectError(res, 415, "unsupported_media_type", "content-type");
  });

  it("answers 415 when there is no content type", async () => {
    const res = await call("/v1/gate", { method: "POST", body: new TextEncoder().encode(JSON.stringify(EXAMPLE_A)) });
    await expectError(res, 415, "unsupported_media_type");
  });

  it("accepts application/json with a charset", async () => {
    const res = await postGate(EXAMPLE_A, { "content-type": "application/json; charset=utf-8" });
    expect(res.status).toBe(200);
  });

  it.each([
    "application/json; charset=utf-16",
    "application/json; charset=ISO-8859-1",
    'application/json;charset="latin1"',
  ])("answers 415, not invalid_json, for a JSON body declared as %s", async (type) => {
    const res = await call("/v1/gate", {
      method: "POST",
      headers: { "content-type": type },
      body: JSON.stringify(EXAMPLE_A),
    });
    await expectError(res, 415, "unsupported_media_type", "content-type");
  });

  it.each([
    ["/v1/gate", "POST"],
    ["/v1/outcomes", "POST"],
    ["/v1/admin/config", "PUT"],
  ])(
    "answers 415 naming content-type on %s for a media type with a trailing or malformed parameter",
    async (path, method) => {
      for (const type of ["application/json;", "application/json; ", "application/json; charset"]) {
        const res = await call(path, {
          method,
          headers: { "content-type": type, ...bearer(ALICE_TOKEN) },
          body: JSON.stringify(EXAMPLE_A),
        });
        await expectError(res, 415, "unsupported_media_type", "content-type");
      }
    },
  );

  it("accepts charset UTF-8 in any case, quoted or not", async () => {
    for (const type of ["application/json; charset=UTF-8", 'application/json; charset="utf8"']) {
      expect((await postGate(EXAMPLE_A, { "content-type": type })).status).toBe(200);
    }
  });

  it.each(["gzip", "br", "deflate"])(
    "answers 415, not invalid_json, for a body sent with Content-Encoding %s",
    async (encoding) => {
      const res = await postGate(EXAMPLE_A, { "content-encoding": encoding });
      await expectError(res, 415, "unsupported_media_type", "content-encoding");
    },
  );

  it("answers 404 with a JSON body for an unknown route", async () => {
    await expectError(await call("/v1/nope"), 404, "not_found");
  });

  it("answers 405 with Allow for a wrong method", async () => {
    const res = await call("/v1/gate", { method: "GET" });
    await expectError(res, 405, "method_not_allowed");
    expect(res.headers.get("allow")).toBe("POST");
    const put = await call("/healthz", { method: "DELETE" });
    await expectError(put, 405, "method_not_allowed");
  });
});

describe("GET /healthz", () => {
  it("answers ok", async () => {
    const res = await call("/healthz");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok", service: "offload-gate" });
  });
});
