import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { replayPriorsKey } from "../../src/storage/rules/keys";
import { sumsInconsistency } from "../../src/storage/rules/learning-sums";
import { MAX_REPLAY_OBSERVATIONS } from "../../src/storage/write/replay-priors";
import { adminCall } from "../support/admin-helpers";
import { OPUS, putRow, resetState } from "../support/helpers";
import { runs } from "../support/runs";

// Fuzzing the replay import's counts (docs/learning.md § The replay level's cap): plausible sums, counts at
// and past the cap, fractions, 1e308, negatives. An import is stored exactly when every count is a whole
// number, the output counts at most 10^7, the turn sums safe integers and the sums consistent; anything
// else is a 400 naming a count, and the stored import stays as it was. The seed is fixed to reproduce.

const SEED = 20261204;
const OBSERVATIONS = ["p_n", "p_r", "h_n", "q_n"] as const;
const TURNS = ["h_sum", "h_sumsq", "q_cached", "q_turns"] as const;

const wild = fc.oneof(
  { weight: 6, arbitrary: fc.nat({ max: 2_000 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      MAX_REPLAY_OBSERVATIONS,
      MAX_REPLAY_OBSERVATIONS + 1,
      Number.MAX_SAFE_INTEGER,
      2 ** 53,
      1e308,
      1e-300,
      0.5,
      -1,
    ),
  },
  { weight: 1, arbitrary: fc.double({ noNaN: true }) },
);

/** Sums that are mostly consistent (so the cap and integer checks are what decide), sometimes wild. */
const sums = fc
  .record({
    n: fc.nat({ max: 1_000 }),
    mean: fc.nat({ max: 20 }),
    recalled: fc.nat({ max: 100 }),
    field: fc.constantFrom(...OBSERVATIONS, ...TURNS),
    value: wild,
    poke: fc.boolean(),
  })
  .map(({ n, mean, recalled, field, value, poke }) => {
    const base: Record<string, number> = {
      p_n: n,
      p_r: Math.floor((n * recalled) / 100),
      h_n: n,
      h_sum: n * mean,
      h_sumsq: n * mean * mean,
      q_n: 0,
      q_cached: 0,
      q_turns: 0,
    };
    return poke ? { ...base, [field]: value } : base;
  });

const stored = (s: Record<string, number>) =>
  OBSERVATIONS.every((f) => Number.isInteger(s[f]) && s[f]! >= 0 && s[f]! <= MAX_REPLAY_OBSERVATIONS) &&
  TURNS.every((f) => Number.isSafeInteger(s[f]) && s[f]! >= 0) &&
  sumsInconsistency(s as never) === null;

beforeAll(async () => {
  await reset();
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});

describe("the replay import's counts under fuzzing", () => {
  it("are stored exactly when whole, capped and consistent, and otherwise refused naming a count with nothing changed", async () => {
    await fc.assert(
      fc.asyncProperty(sums, async (s) => {
        const before = await env.PRICING.get(replayPriorsKey("default"));
        const res = await adminCall("POST", "/v1/admin/learning/import?tenant=default", {
          version: 1,
          source: "replay",
          tools: { read_file: { sums: s } },
        });
        if (stored(s)) {
          expect(res.status).toBe(200);
          return;
        }
        expect(res.status).toBe(400);
        const error = await res.json<{ error: { issues: { path: string }[] } }>();
        expect(error.error.issues[0]!.path).toMatch(
          /^tools\.read_file\.sums(\.(p_n|p_r|h_n|q_n|h_sum|h_sumsq|q_cached|q_turns))?$/,
        );
        expect(await env.PRICING.get(replayPriorsKey("default"))).toBe(before);
      }),
      { seed: SEED, numRuns: runs(80) },
    );
  }, 120_000);
});
