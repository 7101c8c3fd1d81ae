import { describe, expect, it, vi } from "vitest";
// @ts-expect-error -- a plain .mjs script without types; its exports are documented there.
import { readConstants, render, staleFiles } from "../../clients/scripts/constants.mjs";
import { CHARS_PER_TOKEN, RECALL_PLACEMENTS } from "../../src/gate/constants";
import { MIN_STUB_CHARS } from "../../src/proxy/enforce/enforce";
import { RECALL_TOOL_NAME, STUB_TEMPLATE, stubText } from "../../src/proxy/enforce/dialect";
import { DEFAULT_PLAN_EVERY, PlanCadence } from "../../src/replay/gate-policies";
import { hashText } from "../../src/replay/formats/trace";

// The proxy's enforce mode reaches the ledger's door, whose Durable Object base class only workerd provides.
vi.mock("cloudflare:workers", () => ({ DurableObject: class {} }));

type CadenceStep = ["call"] | ["due", number, boolean] | ["asked", number];
interface CadenceCase {
  case: string;
  every?: number;
  steps: CadenceStep[];
}

// The clients' shared facts live in clients/constants.json; both clients read
// generated files. A stale generated file, or a client whose estimate of
// tokens differs from the worker's, fails here.
describe("the clients' shared constants", () => {
  it("are generated from clients/constants.json, and the committed files are what the generator writes", () => {
    expect(staleFiles()).toEqual([]);
  });

  it("estimate tokens from characters as the worker does", () => {
    expect(readConstants().chars_per_token).toBe(CHARS_PER_TOKEN);
  });

  it("write the stub the proxy's enforce mode writes, naming the same recall tool, above the same floor", () => {
    const constants = readConstants();
    expect(STUB_TEMPLATE).toBe(constants.stub_template);
    expect(RECALL_TOOL_NAME).toBe(constants.recall_tool_name);
    expect(MIN_STUB_CHARS).toBe(constants.default_min_chars);
    expect(stubText("call_1", "web_fetch", 160_000)).toBe(
      '[offloaded: the output of web_fetch call call_1 (160,000 chars) is not shown; call recall_tool_output with {"id":"call_1"} to read it]',
    );
  });

  it("say the clients' recall appends the original, the worker's default placement", () => {
    expect(readConstants().recall_placement).toBe("append");
    expect(RECALL_PLACEMENTS[0]).toBe("append");
  });

  it("write every constant into both clients, under the same names", () => {
    const { typescript, python } = render(readConstants());
    for (const name of [
      "CHARS_PER_TOKEN",
      "RECALL_TOOL_NAME",
      "RECALL_PLACEMENT",
      "SESSION_ID_PREFIX",
      "DEFAULT_MIN_CHARS",
      "STUB_TEMPLATE",
      "TOKENS_PER_CHAR",
      "DEFAULT_TOKENS_PER_CHAR",
      "PRIOR_CHARS",
      "DEFAULT_PLAN_EVERY",
      "LOG_HASH_VECTORS",
    ]) {
      expect(typescript).toMatch(new RegExp(`^export const ${name}(: [^=]+)? = `, "m"));
      expect(python).toMatch(new RegExp(`^${name} = `, "m"));
    }
  });

  it("pin the session log's content hash to the one replay's parser uses", () => {
    const vectors: [string, string][] = readConstants().log_hash_vectors;
    expect(vectors.length).toBeGreaterThanOrEqual(4);
    for (const [text, hash] of vectors) expect(hashText(text).toString(16), JSON.stringify(text)).toBe(hash);
  });

  it("pin replay's plan cadence to the clients' on the vectors all three share", () => {
    const { default_plan_every: defaultEvery, plan_cadence_vectors: vectors } = readConstants();
    expect(DEFAULT_PLAN_EVERY).toBe(defaultEvery);
    expect(vectors.length).toBeGreaterThanOrEqual(6);
    for (const { case: name, every, steps } of vectors as CadenceCase[]) {
      const cadence = new PlanCadence(every);
      const answers = steps.map((step) => {
        if (step[0] === "call") cadence.call();
        else if (step[0] === "asked") cadence.asked(step[1]);
        else return cadence.due(step[1]);
        return null;
      });
      const expected = steps.map((step) => (step[0] === "due" ? step[2] : null));
      expect(answers, name).toEqual(expected);
    }
  });

  it("refuse a stub template with a placeholder the clients do not fill, and a count that is not a positive integer", () => {
    const base = JSON.parse(JSON.stringify(readConstants()));
    expect(() => readConstants(JSON.stringify({ ...base, stub_template: "call {tool} now" }))).toThrow(
      /unknown placeholders tool/,
    );
    expect(() => readConstants(JSON.stringify({ ...base, chars_per_token: 0 }))).toThrow(/chars_per_token/);
    expect(() => readConstants(JSON.stringify({ ...base, tokens_per_char: { claude: 0 } }))).toThrow(/tokens_per_char/);
    expect(() => readConstants(JSON.stringify({ ...base, log_hash_vectors: [["a", "XYZ"]] }))).toThrow(
      /log_hash_vectors/,
    );
    for (const steps of [[["due", 10]], [["asked", -1]], [["wait"]], []])
      expect(() => readConstants(JSON.stringify({ ...base, plan_cadence_vectors: [{ case: "x", steps }] }))).toThrow(
        /plan_cadence_vectors/,
      );
    expect(() => readConstants(JSON.stringify({ ...base, default_plan_every: 0 }))).toThrow(/default_plan_every/);
  });
});
