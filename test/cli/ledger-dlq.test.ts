import { describe, expect, it } from "vitest";
import { dlqTarget, main, wranglerArgs } from "../../scripts/ledger/dlq";

function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = main(
    argv,
    (line) => out.push(line),
    (line) => err.push(line),
  );
  return { code, out: out.join("\n"), err: err.join("\n") };
}

describe("npm run ledger:dlq: the ledger queue's dead letters", () => {
  it("names each environment's own dead-letter queue and worker, as wrangler.toml binds them", () => {
    expect(dlqTarget("production")).toEqual({
      env: "production",
      worker: "offload-gate-production",
      queue: "offload-gate-ledger",
      deadLetterQueue: "offload-gate-ledger-dlq",
    });
    expect(dlqTarget("staging")).toEqual({
      env: "staging",
      worker: "offload-gate-staging",
      queue: "offload-gate-ledger-staging",
      deadLetterQueue: "offload-gate-ledger-staging-dlq",
    });
  });

  it("drains by attaching the worker as the dead-letter queue's consumer, and stops by detaching it", () => {
    const target = dlqTarget("production");
    expect(wranglerArgs("drain", target)).toEqual([
      "queues",
      "consumer",
      "add",
      "offload-gate-ledger-dlq",
      "offload-gate-production",
      "--batch-size",
      "100",
      "--batch-timeout",
      "2",
      "--message-retries",
      "10",
      "--retry-delay-secs",
      "60",
    ]);
    expect(wranglerArgs("stop", target)).toEqual([
      "queues",
      "consumer",
      "remove",
      "offload-gate-ledger-dlq",
      "offload-gate-production",
    ]);
    expect(wranglerArgs("status", target)).toEqual(["queues", "info", "offload-gate-ledger-dlq"]);
  });

  it("prints the command without running it on --dry-run", () => {
    const result = run(["drain", "--env", "staging", "--dry-run"]);
    expect(result.code).toBe(0);
    expect(result.out).toBe(
      "wrangler queues consumer add offload-gate-ledger-staging-dlq offload-gate-staging --batch-size 100 --batch-timeout 2 --message-retries 10 --retry-delay-secs 60",
    );
  });

  it("refuses an environment wrangler.toml does not define, an action it does not know, and a missing --env", () => {
    expect(run(["drain", "--env", "prod", "--dry-run"])).toMatchObject({
      code: 2,
      err: "ledger:dlq: --env prod is not an environment of wrangler.toml (it defines: staging, production)",
    });
    expect(run(["purge", "--env", "production"]).err).toMatch(/^ledger:dlq: usage:/);
    expect(run(["drain"]).err).toBe(
      "ledger:dlq: --env NAME is required: dead letters live in a deployed environment's queue",
    );
  });
});
