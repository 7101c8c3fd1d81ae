/**
 * `npm run ledger:dlq -- <drain | stop | status> --env NAME [--dry-run]`:
 * the ledger queue's dead letters (docs/operations.md § Dead letters of the ledger queue).
 *
 *   drain    attach the worker as its dead-letter queue's consumer: its
 *            `queue` handler writes the dead letters to their shards as it
 *            writes LEDGER_QUEUE's (a decision id is stored once, so a
 *            dead letter that did get stored adds nothing)
 *   stop     detach it again, once the queue is empty
 *   status   the dead-letter queue as wrangler reports it
 *
 * The queue and worker names come from wrangler.toml's environment, so the
 * command always names the queues that environment's worker sends to.
 */
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";

/** How the drain consumes: whole batches, and more patience than the main queue (the cause was fixed first). */
export const DRAIN = { batchSize: 100, batchTimeoutSeconds: 2, retries: 10, retryDelaySeconds: 60 } as const;

interface RawConsumer {
  queue: string;
  dead_letter_queue?: string;
}
interface RawEnvironment {
  name?: string;
  queues?: { producers?: { binding: string; queue: string }[]; consumers?: RawConsumer[] };
}

/** The dead-letter queue and the worker of one environment of a wrangler config. */
export interface DlqTarget {
  env: string;
  worker: string;
  queue: string;
  deadLetterQueue: string;
}

/**
 * Reads `env`'s LEDGER_QUEUE and its dead-letter queue from the wrangler
 * config, with wrangler's own parser. Throws naming what is missing.
 *
 * @example
 * dlqTarget("production") // { env: "production", worker: "offload-gate-production", queue: "offload-gate-ledger", deadLetterQueue: "offload-gate-ledger-dlq" }
 */
export function dlqTarget(env: string, config = "wrangler.toml"): DlqTarget {
  const wrangler = createRequire(import.meta.url)("wrangler") as typeof import("wrangler");
  const raw = wrangler.experimental_readRawConfig({ config }).rawConfig as RawEnvironment & {
    env?: Record<string, RawEnvironment>;
  };
  const environment = raw.env?.[env];
  if (environment === undefined)
    throw new Error(
      `--env ${env} is not an environment of ${config} (it defines: ${Object.keys(raw.env ?? {}).join(", ")})`,
    );
  const queue = environment.queues?.producers?.find((producer) => producer.binding === "LEDGER_QUEUE")?.queue;
  if (queue === undefined) throw new Error(`${config}'s ${env} binds no LEDGER_QUEUE`);
  const deadLetterQueue = environment.queues?.consumers?.find(
    (consumer) => consumer.queue === queue,
  )?.dead_letter_queue;
  if (deadLetterQueue === undefined)
    throw new Error(`${config}'s ${env} consumer of ${queue} has no dead_letter_queue`);
  // An environment's worker is named "<name>-<env>" unless it names itself.
  return { env, worker: environment.name ?? `${raw.name}-${env}`, queue, deadLetterQueue };
}

/**
 * The wrangler command line for an action on a target (pure).
 *
 * @example
 * wranglerArgs("stop", target) // ["queues", "consumer", "remove", "offload-gate-ledger-dlq", "offload-gate-production"]
 */
export function wranglerArgs(action: "drain" | "stop" | "status", target: DlqTarget): string[] {
  if (action === "status") return ["queues", "info", target.deadLetterQueue];
  if (action === "stop") return ["queues", "consumer", "remove", target.deadLetterQueue, target.worker];
  return [
    "queues",
    "consumer",
    "add",
    target.deadLetterQueue,
    target.worker,
    "--batch-size",
    String(DRAIN.batchSize),
    "--batch-timeout",
    String(DRAIN.batchTimeoutSeconds),
    "--message-retries",
    String(DRAIN.retries),
    "--retry-delay-secs",
    String(DRAIN.retryDelaySeconds),
  ];
}

/**
 * Runs the CLI: answers its exit code (0 done, 2 usage or failure).
 *
 * @example
 * main(["drain", "--env", "staging", "--dry-run"], console.log, console.error) // prints the wrangler command, 0
 */
export function main(argv: string[], out: (line: string) => void, err: (line: string) => void): number {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { env: { type: "string" }, config: { type: "string" }, "dry-run": { type: "boolean" } },
    });
    const [action] = positionals;
    if (action !== "drain" && action !== "stop" && action !== "status")
      throw new Error("usage: npm run ledger:dlq -- <drain | stop | status> --env NAME [--dry-run]");
    if (values.env === undefined)
      throw new Error("--env NAME is required: dead letters live in a deployed environment's queue");
    const args = wranglerArgs(action, dlqTarget(values.env, values.config));
    out(`wrangler ${args.join(" ")}`);
    if (values["dry-run"] === true) return 0;
    const wrangler = join(
      dirname(createRequire(import.meta.url).resolve("wrangler/package.json")),
      "bin",
      "wrangler.js",
    );
    const result = spawnSync(process.execPath, [wrangler, ...args], {
      stdio: "inherit",
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    });
    return result.status === 0 ? 0 : 2;
  } catch (error) {
    err(`ledger:dlq: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/^.*\/scripts\//, "/scripts/"))) {
  process.exit(main(process.argv.slice(2), console.log, console.error));
}
