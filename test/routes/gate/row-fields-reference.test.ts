import { beforeAll, describe, expect, it } from "vitest";
import reference from "../../fixtures/row-fields-reference.json";
import { postJson, putRow, resetState } from "../../support/helpers";

/**
 * Worked examples O1 (OpenAI's 30-minute cache), M1 (the minimum cacheable prefix) and T1 (the
 * tokenizer ratio) of docs/economics.md over HTTP, against the exact reference
 * (scripts/reference/economics.py, python fractions written from docs/design/economics.md §5.2, §11,
 * §12, not from src/). Regenerate with
 * `python3 scripts/reference/economics.py rows > test/fixtures/row-fields-reference.json`.
 */
interface Case {
  name: string;
  model_name: string;
  row: Record<string, unknown>;
  inputs: Record<string, unknown>;
  expected: { net_saving_usd: string; exact: string; fire: boolean };
}
const cases = reference as Case[];
const close = (got: number, want: number) => Math.abs(got - want) <= 1e-9 * Math.max(1, Math.abs(want));

beforeAll(async () => {
  await resetState();
  for (const c of cases) await putRow(c.model_name, c.row as never);
});

const decide = async (c: Case) =>
  (await postJson("/v1/gate", { model_name: c.model_name, pricing_mode: "cache_aware", ...c.inputs })).json<any>();

describe("the row fields' worked examples against the exact reference", () => {
  it.each(cases.map((c) => [c.name, c] as const))("%s: the gate's net and fire are the reference's", async (_, c) => {
    const answer = await decide(c);
    expect(answer.fire).toBe(c.expected.fire);
    expect(close(answer.net_saving_usd, Number(c.expected.net_saving_usd))).toBe(true);
  });

  it("O1 is priced at 30m, the row's only TTL", async () => {
    expect((await decide(cases.find((c) => c.name === "O1")!)).inputs.cache_ttl).toBe("30m");
  });

  it("M1 flips: below Opus' 4,096-token minimum nothing is cached, so carrying costs input every turn and stubbing pays", () => {
    const [without, withFloor] = ["M1 without the minimum", "M1"].map((n) => cases.find((c) => c.name === n)!);
    expect([without!.expected.fire, withFloor!.expected.fire]).toEqual([false, true]);
  });

  it("T1 flips: 36,000 characters are 12,500 tokens at Sonnet 4.5's measured 2.88, not 9,000, and the answer says which ratio", async () => {
    const t1 = await decide(cases.find((c) => c.name === "T1")!);
    expect(t1.inputs.chars_per_token).toBe(2.88);
    expect(t1.inputs.output_tokens).toBeCloseTo(12_500, 9);
    const four = await decide(cases.find((c) => c.name === "T1 at 4 characters a token")!);
    expect([four.inputs.chars_per_token, four.fire, t1.fire]).toEqual([4, false, true]);
  });

  it("keeps chars / 4 in seed mode, whatever the row's ratio, bit for bit", async () => {
    const res = await postJson("/v1/gate", { model_name: "sonnet-measured", output_chars: 36_001 });
    const answer = await res.json<any>();
    expect(answer.inputs.output_tokens).toBe(36_001 / 4);
    expect(answer.inputs.chars_per_token).toBeUndefined();
  });
});
