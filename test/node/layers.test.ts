import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// The folder import graph of src/, read from the sources themselves.
const SRC = resolve(__dirname, "../../src");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|tsx)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The top folder under src/ a file belongs to ("gate", "routes"...), or "index" for src/index.ts. */
const folderOf = (file: string) => {
  const [first, ...rest] = relative(SRC, file).split("/");
  return rest.length === 0 ? "index" : (first as string);
};

/** Folder → the other folders of src/ it imports from. */
function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sources(SRC)) {
    const from = folderOf(file);
    const targets = graph.get(from) ?? new Set<string>();
    graph.set(from, targets);
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(/(?:from|import)\s+["'](\.{1,2}\/[^"']+)["']/g)) {
      const target = resolve(dirname(file), match[1] as string);
      if (!target.startsWith(SRC)) continue;
      // "../gate" is the folder's index; "../index" is src/index.ts.
      const rel = relative(SRC, target);
      const to = rel.includes("/") ? (rel.split("/")[0] as string) : rel;
      if (to !== from) targets.add(to);
    }
  }
  return graph;
}

const graph = folderGraph();
const importsOf = (folder: string) => [...(graph.get(folder) ?? [])].sort();

describe("the folder import graph of src/", () => {
  it("has the folders this test knows", () => {
    expect([...graph.keys()].sort()).toEqual(["analytics", "auth", "gate", "http", "index", "learning", "ledger", "litellm", "routes", "store", "sync", "writes"]);
  });

  it("keeps the core and http/ free of any other folder of the project", () => {
    expect(importsOf("gate")).toEqual([]);
    expect(importsOf("http")).toEqual([]);
  });

  it("lets the read side import only the core", () => {
    expect(importsOf("store")).toEqual(["gate"]);
  });

  it("keeps LiteLLM's reader on the read side, and the routes out of the price sync", () => {
    expect(importsOf("litellm")).toEqual(["gate", "store"]);
    expect(importsOf("sync")).not.toContain("routes");
  });

  it("lets the outcomes ledger import only the core and the read side's config", () => {
    expect(importsOf("ledger")).toEqual(["gate", "store"]);
  });

  it("keeps the learner off the routes: the refresh and the view are the routes' to call", () => {
    expect(importsOf("learning")).not.toContain("routes");
    expect(importsOf("ledger")).not.toContain("learning");
  });

  it("has no cycle", () => {
    const visiting = new Set<string>();
    const done = new Set<string>();
    const cycles: string[] = [];
    const visit = (folder: string, path: string[]) => {
      if (done.has(folder)) return;
      if (visiting.has(folder)) {
        cycles.push([...path, folder].join(" → "));
        return;
      }
      visiting.add(folder);
      for (const next of graph.get(folder) ?? []) visit(next, [...path, folder]);
      visiting.delete(folder);
      done.add(folder);
    };
    for (const folder of graph.keys()) visit(folder, []);
    expect(cycles).toEqual([]);
  });
});
