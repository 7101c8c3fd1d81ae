import { build, type Metafile } from "esbuild";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT, workerBuildOptions } from "../../build/bundle.mjs";

// What the entry's startup evaluates, read from the bundle rather than timed
// (bench/startup.mjs times it). The entry is bundled as wrangler bundles it,
// with code splitting on: each dynamic import becomes its own chunk, so the
// entry's chunk and the chunks it imports statically are what an isolate
// evaluates at startup, and the rest is what the first request that needs it loads.

/** The project's files (and node_modules' packages) in the startup chunks, and in the whole bundle. */
async function startupInputs(): Promise<{ startup: string[]; all: string[] }> {
  const result = await build({
    ...workerBuildOptions(),
    entryPoints: [join(ROOT, "src/index.ts")],
    splitting: true,
    outdir: join(ROOT, "dist", "startup-test"),
    write: false,
    metafile: true,
    logLevel: "error",
  });
  const outputs: Metafile["outputs"] = result.metafile.outputs;
  // Each dynamic import is an entry point of its own in the metafile: the entry is the one built from src/index.ts.
  const entry = Object.keys(outputs).find((path) => outputs[path]?.entryPoint === "src/index.ts");
  if (entry === undefined) throw new Error("the bundle has no entry chunk");
  const loaded = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const chunk = pending.pop() as string;
    if (loaded.has(chunk)) continue;
    loaded.add(chunk);
    for (const imported of outputs[chunk]?.imports ?? [])
      if (imported.kind === "import-statement" && imported.path in outputs) pending.push(imported.path);
  }
  // A file whose code was shaken out of a chunk (types, unused exports) costs startup nothing.
  const inputsOf = (chunks: string[]) =>
    [
      ...new Set(
        chunks.flatMap((chunk) =>
          Object.entries(outputs[chunk]?.inputs ?? {})
            .filter(([, input]) => input.bytesInOutput > 0)
            .map(([path]) => normalize(path)),
        ),
      ),
    ].sort();
  return { startup: inputsOf([...loaded]), all: inputsOf(Object.keys(outputs)) };
}

/** "src/…" for the project's files, "npm:<package>/…" for a dependency's, wherever node_modules is linked from. */
const normalize = (path: string) => {
  const at = path.lastIndexOf("node_modules/");
  return at === -1 ? path : `npm:${path.slice(at + "node_modules/".length)}`;
};

let startup: string[] = [];
let all: string[] = [];
const project = () => startup.filter((path) => path.startsWith("src/"));

beforeAll(async () => {
  ({ startup, all } = await startupInputs());
});

describe("what the entry's startup loads", () => {
  it("is the gate's direct path, GET /healthz and the ledger's Durable Object class", () => {
    for (const file of [
      "src/index.ts",
      "src/routes/gate/direct/direct.ts",
      "src/routes/gate/direct/batch.ts",
      "src/routes/health-ok.ts",
      "src/ledger/shard/shard.ts",
      "src/gate/decision.ts",
      "src/storage/read.ts",
    ]) {
      expect(startup, file).toContain(file);
    }
  });

  it("leaves every route module of the app and the OpenAPI wiring to the first request that needs them", () => {
    const routes = project().filter((file) => file.startsWith("src/routes/"));
    // Startup's route files are the gate's direct path, the zod-free part of the
    // routes' kernel it shares, and /healthz's answer: no OpenAPI side, no other resource.
    const kernel = ["context.ts", "cross-field.ts", "pricing.ts", "recording.ts"].map(
      (name) => `src/routes/kernel/${name}`,
    );
    expect(
      routes.filter(
        (file) =>
          !file.startsWith("src/routes/gate/direct/") && !kernel.includes(file) && file !== "src/routes/health-ok.ts",
      ),
    ).toEqual([]);
    // No module that builds an OpenAPI route (createRoute) runs at startup.
    expect(project().filter((file) => readFileSync(join(ROOT, file), "utf8").includes("createRoute("))).toEqual([]);
  });

  it("leaves out the answers' schemas, the console and the documentation pages", () => {
    expect(startup.filter((file) => file.startsWith("src/routes/gate/openapi/"))).toEqual([]);
    for (const name of ["decision-schema.ts", "batch-answer-schema.ts", "priors-schema.ts"]) {
      expect(startup).not.toContain(`src/routes/gate/schemas/${name}`);
      expect(all).toContain(`src/routes/gate/schemas/${name}`);
    }
    expect(
      startup.filter((file) => /^src\/routes\/(console|docs)\//.test(file) || /\.client\.(js|css)$/.test(file)),
    ).toEqual([]);
    expect(startup.filter((file) => file.startsWith("npm:swagger-ui"))).toEqual([]);
  });

  it("leaves the queue consumer, its message schema and the Cron Triggers' modules to their first run", () => {
    for (const file of [
      "src/ledger/transport/consumer.ts",
      "src/ledger/transport/message-schema.ts",
      "src/learning/refresh/scheduled.ts",
      "src/sync/scheduled.ts",
    ]) {
      expect(startup, file).not.toContain(file);
      // Still in the bundle: loaded later, not lost.
      expect(all, file).toContain(file);
    }
  });

  it("bundles the rest of the app for later: the app, its answer side and the console", () => {
    for (const file of [
      "src/routes/app.ts",
      "src/routes/gate/openapi/routes.ts",
      "src/routes/gate/schemas/decision-schema.ts",
      "src/routes/console/index.tsx",
    ]) {
      expect(all, file).toContain(file);
    }
  });
  it("loads no zod at all: the stored row, config and learned value are checked by validators compiled from their schemas", () => {
    expect(startup).toContain("src/storage/validators.generated.js");
    expect(startup).toContain("src/storage/checked.ts");
    // zod itself, the bundle's swap for it (build/zod-without-locales/zod*.js), and the OpenAPI wrapper that re-exports it.
    expect(
      startup.filter((file) =>
        /^npm:(zod|@hono\/zod-openapi|@asteasolutions)\/|^build\/zod-without-locales\//.test(file),
      ),
    ).toEqual([]);
    for (const file of [
      "src/storage/schemas/schema.ts",
      "src/storage/schemas/config.ts",
      "src/storage/schemas/learning-schema.ts",
      "src/storage/schemas/name-record.ts",
      "src/storage/schemas/parse-row.ts",
    ]) {
      expect(startup, file).not.toContain(file);
      // Still in the bundle: zod words the answer for a stored value the compiled check refuses.
      expect(all, file).toContain(file);
    }
    // No project file at startup imports zod or its OpenAPI wrapper other than for types.
    expect(
      project().filter((file) =>
        /^import (?!type )[^;]*from "(zod|@hono\/zod-openapi)"/m.test(readFileSync(join(ROOT, file), "utf8")),
      ),
    ).toEqual([]);
  });

  it("builds none of the gate request's zod schemas: the validators compiled from them check a body, zod only a body they refuse", () => {
    expect(startup).toContain("src/routes/gate/direct/validators.generated.js");
    expect(startup).toContain("src/routes/gate/direct/compiled.ts");
    for (const file of [
      ...["schema.ts", "batch-schema.ts", "economics-fields.ts"].map((name) => `src/routes/gate/schemas/${name}`),
      ...["fields.ts", "dry-run.ts"].map((name) => `src/routes/kernel/openapi/${name}`),
    ]) {
      expect(startup, file).not.toContain(file);
      expect(all, file).toContain(file);
    }
  });
});
