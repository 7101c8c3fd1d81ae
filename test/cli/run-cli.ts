/**
 * @module test/cli/run-cli
 *
 * The ops CLI run in-process with a fake terminal, and the fixtures and
 * scratch directory its tests share.
 *
 * @example
 * const { code, out } = await run(["validate", `${FIXTURES}valid.json`]);
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { main, type Io } from "../../scripts/pricing/cli";

/** The CLI tests' fixture files. */
export const FIXTURES = new URL("./fixtures/", import.meta.url).pathname;

/**
 * A scratch directory for this test file, removed after its tests.
 *
 * @example
 * const dir = scratchDir();
 */
export function scratchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "offload-gate-cli-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Runs the CLI in-process with a fake terminal: what it printed, and its exit code.
 *
 * @example
 * const { code, err, asked } = await run(["seed"], { interactive: true, answers: ["n"] });
 */
export async function run(argv: string[], terminal: { interactive?: boolean; answers?: string[] } = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const asked: string[] = [];
  const answers = [...(terminal.answers ?? [])];
  const io: Io = {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    interactive: terminal.interactive ?? false,
    ask: async (question) => {
      asked.push(question);
      return answers.shift() ?? "";
    },
    now: () => new Date("2026-11-30T12:00:00Z"),
  };
  const code = await main(argv, io);
  return { code, out: out.join("\n"), err: err.join("\n"), asked };
}
