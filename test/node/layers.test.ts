import { readdirSync, readFileSync, statSync } from "node:fs";
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

/**
 * The top folder under src/ a file belongs to ("gate", "routes"...), or
 * "index" for src/index.ts; storage counts as its rooms: "storage" (the
 * reads), "storage/rules", "storage/schemas" and "storage/write".
 */
const folderOf = (file: string) => {
  const [first, ...rest] = relative(SRC, file).split("/");
  if (rest.length === 0) return "index";
  return first === "storage" && rest.length > 1 ? `storage/${rest[0]}` : (first as string);
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
      // "../gate" names the folder (its index); "../index" is src/index.ts.
      const to = folderOf(
        statSync(target, { throwIfNoEntry: false })?.isDirectory() ? join(target, "index.ts") : target,
      );
      if (to !== from) targets.add(to);
    }
  }
  return graph;
}

/** Every relative import of a file (static, re-export or dynamic), resolved to a path without extension. */
function importsOfFile(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)].map((match) =>
    resolve(dirname(file), match[1] as string),
  );
}

const LEDGER = join(SRC, "ledger");
const ROOMS = ["model", "stats", "shard", "transport"] as const;

/** Room → what its files import: the other rooms, and the folders of src/ outside the ledger. */
function roomGraph(): Map<string, { rooms: Set<string>; outside: Set<string> }> {
  const graph = new Map(
    ROOMS.map((room) => [room as string, { rooms: new Set<string>(), outside: new Set<string>() }]),
  );
  for (const room of ROOMS) {
    const edges = graph.get(room)!;
    for (const file of sources(join(LEDGER, room))) {
      for (const target of importsOfFile(file)) {
        if (!target.startsWith(SRC)) continue;
        const inLedger = relative(LEDGER, target);
        if (inLedger.startsWith("..")) edges.outside.add(relative(SRC, target).split("/")[0] as string);
        else if (inLedger.split("/")[0] !== room)
          edges.rooms.add(inLedger.includes("/") ? (inLedger.split("/")[0] as string) : inLedger);
      }
    }
  }
  return graph;
}

const graph = folderGraph();
const importsOf = (folder: string) => [...(graph.get(folder) ?? [])].sort();

describe("the folder import graph of src/", () => {
  it("has the folders this test knows", () => {
    expect([...graph.keys()].sort()).toEqual([
      "analytics",
      "auth",
      "gate",
      "http",
      "index",
      "learning",
      "ledger",
      "litellm",
      "proxy",
      "replay",
      "routes",
      "storage",
      "storage/rules",
      "storage/schemas",
      "storage/write",
      "sync",
    ]);
  });

  it("keeps the core and http/ free of any other folder of the project", () => {
    expect(importsOf("gate")).toEqual([]);
    expect(importsOf("http")).toEqual([]);
  });

  it("lets replay import only the core, so the CLI, the console's page and the browser share it", () => {
    expect(importsOf("replay")).toEqual(["gate"]);
  });

  it("lets the reads of stored values import only the core and storage's own rules and schemas", () => {
    expect(importsOf("storage")).toEqual(["gate", "storage/rules", "storage/schemas"]);
    // The rules are free of zod, so the reads at startup take them without the schemas.
    expect(importsOf("storage/rules")).toEqual(["gate"]);
    expect(importsOf("storage/schemas")).toEqual(["gate", "storage/rules"]);
  });

  it("keeps LiteLLM's reader on the stored row's rules and schema, and the routes out of the price sync", () => {
    expect(importsOf("litellm")).toEqual(["gate", "storage/rules", "storage/schemas"]);
    expect(importsOf("sync")).not.toContain("routes");
  });

  it("lets the outcomes ledger import only the core and the config's rules", () => {
    expect(importsOf("ledger")).toEqual(["gate", "storage/rules"]);
  });

  it("keeps the proxy off the routes: it asks the gate through the worker's own fetch, and the rest through their doors", () => {
    expect(importsOf("proxy")).toEqual(["auth", "gate", "http", "ledger", "replay", "storage", "storage/rules"]);
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

describe("the outcomes ledger's rooms", () => {
  const rooms = roomGraph();
  const roomsOf = (room: string) => [...(rooms.get(room)?.rooms ?? [])].sort();
  const outsideOf = (room: string) => [...(rooms.get(room)?.outside ?? [])].sort();

  it("holds every file of src/ledger in a room, the front door alone at the top", () => {
    const top = sources(LEDGER)
      .filter((file) => !relative(LEDGER, file).includes("/"))
      .map((file) => relative(LEDGER, file));
    expect(top).toEqual(["index.ts"]);
    expect(
      readdirSync(LEDGER, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
        .sort(),
    ).toEqual([...ROOMS].sort());
  });

  it("keeps the model free of the other rooms, importing only the core and the config's bounds", () => {
    expect(roomsOf("model")).toEqual([]);
    expect(outsideOf("model")).toEqual(["gate", "storage"]);
  });

  it("lets the statistics read only the model, and nothing outside the ledger", () => {
    expect(roomsOf("stats")).toEqual(["model"]);
    expect(outsideOf("stats")).toEqual([]);
  });

  it("keeps the shard off the worker's side of the ledger", () => {
    expect(roomsOf("shard")).not.toContain("transport");
    expect(roomsOf("shard")).not.toContain("index");
  });

  // The one other SQLite store is the proxy's enforced session (docs/design/proxy.md §8.3): its own object, its own tables.
  it("runs SQL in the shard's room alone, and in the proxy's enforced-session object", () => {
    const elsewhere = sources(SRC).filter(
      (file) =>
        !file.startsWith(`${LEDGER}/shard/`) &&
        relative(SRC, file) !== join("proxy", "enforce", "store.ts") &&
        /\bSqlStorage\b|\.sql\.exec\(|\bsql\.exec\(/.test(readFileSync(file, "utf8")),
    );
    expect(elsewhere.map((file) => relative(SRC, file))).toEqual([]);
  });

  it("never lets a room import the front door", () => {
    for (const room of ROOMS) expect(roomsOf(room), room).not.toContain("index");
  });

  it("lets code outside the ledger (src/ and scripts/) import it through its front door only", () => {
    const outside = [
      ...sources(SRC).filter((file) => !file.startsWith(`${LEDGER}/`)),
      ...sources(resolve(SRC, "../scripts")),
    ];
    const inner = outside.flatMap((file) =>
      importsOfFile(file)
        .filter((target) => target.startsWith(`${LEDGER}/`))
        .map((target) => `${relative(SRC, file)} → ${relative(SRC, target)}`),
    );
    expect(inner).toEqual([]);
  });
});

describe("the gate's routes", () => {
  const direct = join(SRC, "routes/gate/direct");
  const openapi = join(SRC, "routes/gate/openapi");
  const reaches = (files: string[], folder: string) =>
    files.flatMap((file) =>
      importsOfFile(file)
        .filter((target) => target === folder || target.startsWith(`${folder}/`))
        .map((target) => `${relative(SRC, file)} → ${relative(SRC, target)}`),
    );

  it("keeps the direct path (built at startup) free of the OpenAPI side, which imports it", () => {
    expect(reaches(sources(direct), openapi)).toEqual([]);
    // The rule has something to hold: the OpenAPI side does build on the direct path.
    expect(reaches(sources(openapi), direct).length).toBeGreaterThan(0);
  });

  it("keeps the routes' shared kernel free of every route folder", () => {
    const kernel = join(SRC, "routes/kernel");
    const routeFolders = readdirSync(join(SRC, "routes"), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== "kernel")
      .map((entry) => join(SRC, "routes", entry.name));
    expect(routeFolders.flatMap((folder) => reaches(sources(kernel), folder))).toEqual([]);
    expect(routeFolders.length).toBeGreaterThan(5);
  });
});
