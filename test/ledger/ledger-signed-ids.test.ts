import { reset, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { checkDecisionId, ledgerShard, parseDecisionId, signDecisionId } from "../../src/ledger";
import { purge } from "../../src/ledger/shard/shard-writes";
import { ledgerShardKey } from "../../src/storage/rules/keys";
import { WORKED_EXAMPLE_P1 } from "../../src/routes/plan/schema";
import { OPUS, putRow, resetState } from "../support/helpers";
import { callWorker, decisionIdOf, seedDecision } from "../support/ledger-fixtures";
import { DECISION_KEY, DECISION_KEY_OLD } from "../support/secrets";

// Signed decision ids (docs/design/ledger.md §1), and outcomes that arrive before their decision.

const TENANT = "agents-prod";
const KEYED = { DECISION_ID_KEY: DECISION_KEY };
const SIGNED = /^dec_\d+_[0-9a-f]{32}_[0-9a-f]{8}_[0-9a-f]{16}$/;

const outcome = (decision_id: string, turns_after = 3) => ({ decision_id, turns_after, recalled: false });
async function postOutcomes(items: unknown[], envOver: Partial<Env> = KEYED) {
  const res = await callWorker("/v1/outcomes", { json: { items }, key: TENANT }, envOver);
  return { status: res.status, body: await res.json<Record<string, any>>() };
}
const savings = async () => (await callWorker("/v1/savings", { key: TENANT })).json<any>();

/** Counts the ledger objects the worker names, passing every call through to the real binding. */
function countObjects(): string[] {
  const named: string[] = [];
  const real = env.LEDGER.idFromName.bind(env.LEDGER);
  vi.spyOn(env.LEDGER, "idFromName").mockImplementation((name: string) => {
    named.push(name);
    return real(name);
  });
  return named;
}

beforeEach(async () => {
  await reset();
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});
afterEach(() => vi.restoreAllMocks());

describe("decision ids signed with DECISION_ID_KEY", () => {
  it("are answered signed, route to the shard they name, and verify for their tenant only", async () => {
    const res = await callWorker(
      "/v1/gate",
      { json: { model_name: "claude-opus-4-6", output_tokens: 20_000, session_id: "s-1" }, key: TENANT },
      KEYED,
    );
    const { decision_id: id } = await res.json<any>();
    expect(id).toMatch(SIGNED);
    expect(await checkDecisionId(KEYED, TENANT, id)).toMatchObject({ kind: "authentic" });
    expect(await checkDecisionId(KEYED, "agents-staging", id)).toEqual({ kind: "forged" });
    // One character of the random part changed: the tag no longer fits.
    const flipped = id.replace(
      /^(dec_\d+_)(.)/,
      (_: string, head: string, c: string) => head + (c === "0" ? "1" : "0"),
    );
    expect(await checkDecisionId(KEYED, TENANT, flipped)).toEqual({ kind: "forged" });
    // Without a key the gate answers as before: an unsigned id.
    const plain = await (
      await callWorker("/v1/gate", { json: { model_name: "claude-opus-4-6", output_tokens: 20_000 }, key: TENANT })
    ).json<any>();
    expect(plain.decision_id).toMatch(/^dec_\d+_[0-9a-f]{32}$/);
    expect(parseDecisionId(id)?.shard).toBe(parseDecisionId(id.slice(0, id.length - 26))?.shard);
    // A clearing plan's id is signed the same way.
    const plan = await (await callWorker("/v1/plan", { json: WORKED_EXAMPLE_P1, key: TENANT }, KEYED)).json<any>();
    expect(plan.decision_id).toMatch(SIGNED);
    expect(await checkDecisionId(KEYED, TENANT, plan.decision_id)).toMatchObject({ kind: "authentic" });
  });

  it("refuse a forged id or another tenant's as unknown_decision without asking any shard", async () => {
    const base = decisionIdOf(0, 7);
    const other = await signDecisionId(KEYED, "agents-staging", base, Date.now());
    const forged = `${base}_${Math.floor(Date.now() / 1000).toString(16)}_${"ab".repeat(8)}`;
    const named = countObjects();
    const { status, body } = await postOutcomes([outcome(forged), outcome(other)]);
    expect(status).toBe(200);
    expect(body.results.map((r: any) => r.status)).toEqual(["unknown_decision", "unknown_decision"]);
    expect(named).toEqual([]);
    // A binding that fails every call: the answer is the same, so nothing asked it.
    const faulty = {
      idFromName: () => {
        throw new Error("the ledger must not be asked");
      },
    } as unknown as Env["LEDGER"];
    expect((await postOutcomes([outcome(forged)], { ...KEYED, LEDGER: faulty })).body.unknown_decision).toBe(1);
  });

  it("verify under the previous key while both are set, and not once it is removed", async () => {
    const id = await signDecisionId({ DECISION_ID_KEY: DECISION_KEY_OLD }, TENANT, decisionIdOf(0, 9), Date.now());
    const rotating = { DECISION_ID_KEY: DECISION_KEY, DECISION_ID_KEY_PREVIOUS: DECISION_KEY_OLD };
    expect(await checkDecisionId(rotating, TENANT, id)).toMatchObject({ kind: "authentic" });
    expect(await checkDecisionId(KEYED, TENANT, id)).toEqual({ kind: "forged" });
    // Over HTTP: pending while both keys are set, unknown once the old one is gone.
    expect((await postOutcomes([outcome(id)], rotating)).body.results).toEqual([
      { status: "accepted", repeated: false, pending: true },
    ]);
    expect((await postOutcomes([outcome(id)], KEYED)).body.results[0].status).toBe("unknown_decision");
  });
});

describe("an outcome for an authentic id whose decision has not arrived", () => {
  it("is accepted as pending, idempotent when repeated, a conflict when different, and applied once when the decision lands", async () => {
    const at = Date.now();
    const base = decisionIdOf(0, 11);
    const id = await signDecisionId(KEYED, TENANT, base, at);
    const first = await postOutcomes([outcome(id)]);
    expect(first.body).toMatchObject({
      accepted: 1,
      results: [{ status: "accepted", repeated: false, pending: true }],
    });
    expect((await postOutcomes([outcome(id)])).body.results).toEqual([
      { status: "accepted", repeated: true, pending: true },
    ]);
    expect((await postOutcomes([outcome(id, 5)])).body.results[0].status).toBe("conflict");

    // The decision arrives (as the queue's consumer writes it): the pending outcome is applied with it.
    await ledgerShard(env.LEDGER, TENANT, 0).record(TENANT, [seedDecision({ decision_id: id, at })], 30);
    // …and marks its shard written, as the hand-over does, so the report asks it.
    await env.PRICING.put(ledgerShardKey(TENANT, 0), "1");
    const report = await savings();
    expect(report.decisions).toBe(1);
    expect(report.outcomes).toBe(1);
    // Now stored: a repeat is a plain repeat, a different report still a conflict, and the decision again changes nothing.
    expect((await postOutcomes([outcome(id)])).body.results).toEqual([{ status: "accepted", repeated: true }]);
    expect((await postOutcomes([outcome(id, 5)])).body.results[0].status).toBe("conflict");
    await ledgerShard(env.LEDGER, TENANT, 0).record(TENANT, [seedDecision({ decision_id: id, at })], 30);
    expect((await savings()).outcomes).toBe(1);
  });

  it("is dropped when it does not fit the decision that arrives, and only then", async () => {
    const at = Date.now();
    const [fits, misfits] = (await Promise.all(
      [21, 22].map((n) => signDecisionId(KEYED, TENANT, decisionIdOf(0, n), at)),
    )) as [string, string];
    // A recall reported for a decision that will not have fired.
    const sent = await postOutcomes([outcome(fits), { ...outcome(misfits), recalled: true }]);
    expect(sent.body.results.map((r: any) => r.pending)).toEqual([true, true]);
    const quiet = { fire: false, would_fire: false, reason_code: "net_not_positive" as const, at };
    await ledgerShard(env.LEDGER, TENANT, 0).record(
      TENANT,
      [seedDecision({ decision_id: fits, at }), seedDecision({ decision_id: misfits, ...quiet })],
      30,
    );
    await env.PRICING.put(ledgerShardKey(TENANT, 0), "1");
    expect((await savings()).outcomes).toBe(1);
    // The dropped one is gone: a fitting report for it is now stored as any first report is.
    expect((await postOutcomes([outcome(misfits)])).body.results).toEqual([{ status: "accepted", repeated: false }]);
  });

  it("expires with the raw window when its decision never comes", async () => {
    const id = await signDecisionId(KEYED, TENANT, decisionIdOf(0, 12), Date.now());
    expect((await postOutcomes([outcome(id)])).body.results[0]).toMatchObject({ pending: true });
    const shard = ledgerShard(env.LEDGER, TENANT, 0);
    const count = () =>
      runInDurableObject(shard, (_i, state) =>
        Number(state.storage.sql.exec("SELECT COUNT(*) AS n FROM pending_outcomes").one().n),
      );
    expect(await count()).toBe(1);
    await runInDurableObject(shard, (_i, state) => {
      purge(state.storage.sql, Date.now() + 3 * 86_400_000, 30, 2);
    });
    expect(await count()).toBe(0);
  });

  it("is unknown_decision when its id was issued before the raw window, and its decision is gone", async () => {
    const id = await signDecisionId(KEYED, TENANT, decisionIdOf(0, 13), Date.now() - 8 * 86_400_000);
    expect((await postOutcomes([outcome(id)])).body.results[0].status).toBe("unknown_decision");
  });
});
