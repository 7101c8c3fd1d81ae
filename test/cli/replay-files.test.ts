import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main, USAGE } from "../../scripts/replay/cli";
import { UNKNOWN_FORMAT } from "../../scripts/replay/files";
import { TRACE_FORMATS } from "../../src/replay";
import { aiderHistory, geminiSession } from "../replay/fixtures-agents";

const dir = mkdtempSync(join(tmpdir(), "offload-gate-replay-files-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (t) => out.push(t), err: (t) => err.push(t), tty: false });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

describe("npm run replay -- --help", () => {
  it("prints the usage, every option and an example, and exits 0", async () => {
    const { code, out, err } = await run(["--help"]);
    expect(code).toBe(0);
    expect(err).toBe("");
    expect(out).toBe(USAGE);
    for (const option of ["--json", "--html", "--priors", "--pricing", "--mode", "--format", "--model", "--sessions"])
      expect(out).toContain(`  ${option}`);
    for (const format of TRACE_FORMATS) expect(out).toContain(format);
    expect(out).toMatch(/examples:\n {2}npm run replay -- /);
    expect((await run(["-h"])).code).toBe(0);
  });
});

describe("npm run replay never skips a file in silence", () => {
  it("replays a folder of three aider histories, each checked against its recorded cost within aider's rounding", async () => {
    const folder = join(dir, "aider");
    for (const name of ["one", "two", "three"]) {
      mkdirSync(join(folder, name), { recursive: true });
      writeFileSync(join(folder, name, ".aider.chat.history.md"), aiderHistory({ turns: 4 }));
    }
    const { code, out } = await run([folder]);
    expect(code).toBe(0);
    expect(out).toMatch(/^replay: 3 sessions, 12 calls \(0 skipped\)/);
    expect(
      out.match(/note: recorded cost \$\S+, keep-everything \$\S+: within the ±\$\S+ the writer's rounding allows/g),
    ).toHaveLength(3);
    expect(out).toContain("files: 3 read, 3 replayed, 0 not replayed");
  });

  it("names every file not replayed with its reason, and exits 1 when none replayed", async () => {
    const folder = join(dir, "nothing");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "README.md"), "# notes\n");
    writeFileSync(join(folder, "empty.json"), geminiSession({ turns: 0 }));
    writeFileSync(join(folder, "imaginary.json"), geminiSession({ turns: 2, model: "gemini-imaginary-9" }));
    const { code, out } = await run([folder]);
    expect(code).toBe(1);
    expect(out).toContain("files: 3 read, 0 replayed, 3 not replayed");
    expect(out).toContain(`${join(folder, "README.md")}: ${UNKNOWN_FORMAT}`);
    expect(UNKNOWN_FORMAT).toContain(
      "tried claude-code, codex, swe-agent, mini-swe-agent, atif, openhands, aider, gemini-cli",
    );
    expect(out).toContain(`${join(folder, "empty.json")} (gemini-cli): no model call`);
    expect(out).toContain(`${join(folder, "imaginary.json")} (gemini-cli): unknown model "gemini-imaginary-9"`);
    expect(out).toContain("nothing was replayed: exit status 1");
  });

  it("names the file and line of a broken record, and replays the rest", async () => {
    const folder = join(dir, "broken");
    mkdirSync(folder, { recursive: true });
    const lines = geminiSession({ turns: 3, jsonl: true }).split("\n");
    lines.splice(2, 0, "{ not json");
    writeFileSync(join(folder, "session-broken.jsonl"), lines.join("\n"));
    writeFileSync(join(folder, "notes.txt"), "hello");
    const { code, out, err } = await run([folder]);
    expect(code).toBe(0);
    expect(err).toContain(`${join(folder, "session-broken.jsonl")}:3: expected one JSON object on the line`);
    expect(out).toMatch(/^replay: 1 sessions, 3 calls/);
    expect(out).toContain("files: 2 read, 1 replayed, 1 not replayed");
  });

  it("names the files not replayed on the --html page too", async () => {
    const folder = join(dir, "nothing");
    const page = join(dir, "nothing.html");
    expect((await run([folder, "--html", page])).code).toBe(1);
    const html = readFileSync(page, "utf8");
    expect(html).toContain("<h2>Files</h2><p>files: 3 read, 0 replayed, 3 not replayed</p>");
    expect(html).toContain(`${join(folder, "README.md")}: not a transcript of any format replay reads`);
  });

  it("lists every file's status in --json", async () => {
    const folder = join(dir, "nothing");
    const { out } = await run([folder, "--json"]);
    const files = (JSON.parse(out) as { files: { path: string; status: string; reason: string }[] }).files;
    expect(files.map((f) => f.status)).toEqual(["skipped", "skipped", "skipped"]);
    expect(files.every((f) => f.reason.length > 0)).toBe(true);
  });
});
