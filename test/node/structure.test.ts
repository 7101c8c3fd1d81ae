import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// The import graph of src/ between files and between folders, read with the
// TypeScript compiler's own pre-processor (static imports, re-exports, type
// imports and dynamic import() alike), and the size of every hand-written file.
const ROOT = resolve(__dirname, "../..");
const SRC = join(ROOT, "src");

function filesUnder(dir: string, pattern: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path, pattern);
    return pattern.test(entry.name) ? [path] : [];
  });
}

const sources = filesUnder(SRC, /\.(ts|tsx)$/).filter((file) => !file.endsWith(".d.ts"));
const known = new Set(sources);

/** The project file an import names, or undefined for a package or a non-code asset. */
function resolveImport(from: string, spec: string): string | undefined {
  if (!spec.startsWith(".")) return undefined;
  const base = resolve(dirname(from), spec);
  return [
    base,
    base.replace(/\.js$/, ".ts"),
    `${base}.ts`,
    `${base}.tsx`,
    join(base, "index.ts"),
    join(base, "index.tsx"),
  ].find((candidate) => known.has(candidate));
}

/** File → the project files it imports. */
const fileGraph = new Map(
  sources.map((file) => {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const targets = importedFiles
      .map((imported) => resolveImport(file, imported.fileName))
      .filter((target): target is string => target !== undefined && target !== file);
    return [file, new Set(targets)] as const;
  }),
);

/** Every strongly connected set of more than one file (Tarjan's algorithm). */
function circles(graph: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!));
    }
    if (low.get(node) === index.get(node)) {
      const members: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        members.push(member);
      } while (member !== node);
      if (members.length > 1) found.push(members.map((file) => relative(SRC, file)).sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe("the import graph of src/", () => {
  it("reads the imports it judges: the entry reaches the core through the routes", () => {
    expect(fileGraph.get(join(SRC, "index.ts"))?.size).toBeGreaterThan(0);
    expect([...fileGraph.values()].reduce((sum, targets) => sum + targets.size, 0)).toBeGreaterThan(500);
  });

  it("has no circle between files, type imports included", () => {
    expect(circles(fileGraph)).toEqual([]);
  });

  it("finds a circle where there is one, so the check above can fail", () => {
    const a = join(SRC, "a.ts");
    const b = join(SRC, "b.ts");
    expect(
      circles(
        new Map([
          [a, new Set([b])],
          [b, new Set([a])],
        ]),
      ),
    ).toEqual([["a.ts", "b.ts"]]);
  });

  it("has no two folders that import each other, a folder and its parent included", () => {
    const folders = new Map<string, Set<string>>();
    for (const [file, targets] of fileGraph) {
      const from = relative(SRC, dirname(file));
      for (const target of targets) {
        const to = relative(SRC, dirname(target));
        if (to === from) continue;
        folders.set(from, (folders.get(from) ?? new Set()).add(to));
      }
    }
    const mutual = [...folders].flatMap(([from, targets]) =>
      [...targets].filter((to) => from < to && folders.get(to)?.has(from)).map((to) => `${from} ⇄ ${to}`),
    );
    expect(mutual).toEqual([]);
  });
});

/** The static imports and re-exports of a file (not dynamic import(): see the door test), as specifiers. */
function staticImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  return source.statements.flatMap((statement) =>
    (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
    statement.moduleSpecifier !== undefined &&
    ts.isStringLiteral(statement.moduleSpecifier)
      ? [statement.moduleSpecifier.text]
      : [],
  );
}

const isDoor = (file: string) => /[/\\]index\.tsx?$/.test(file);

/** Each static import that enters another folder past its index.ts, as "importer → target". */
function pastTheDoor(files: string[], resolveTarget: (from: string, spec: string) => string | undefined): string[] {
  return files.flatMap((file) =>
    staticImports(file).flatMap((spec) => {
      const target = resolveTarget(file, spec);
      if (target === undefined || dirname(target) === dirname(file) || isDoor(target)) return [];
      return [`${relative(SRC, file)} → ${relative(SRC, target)}`];
    }),
  );
}

describe("the import graph of src/, folder by folder with everything inside", () => {
  it("has no two folders whose contents import each other, subfolders counted in their folder", () => {
    const ancestors = (folder: string) =>
      folder
        .split("/")
        .filter((part) => part !== "")
        .map((_, i, parts) => parts.slice(0, i + 1).join("/"));
    const edges = new Set<string>();
    for (const [file, targets] of fileGraph) {
      for (const target of targets) {
        for (const from of ancestors(relative(SRC, dirname(file)))) {
          for (const to of ancestors(relative(SRC, dirname(target)))) {
            if (from === to || from.startsWith(`${to}/`) || to.startsWith(`${from}/`)) continue;
            edges.add(`${from} → ${to}`);
          }
        }
      }
    }
    const mutual = [...edges].filter((edge) => {
      const [from, to] = edge.split(" → ") as [string, string];
      return from < to && edges.has(`${to} → ${from}`);
    });
    expect(edges.size).toBeGreaterThan(50);
    expect(mutual).toEqual([]);
  });
});

describe("the folders' front doors", () => {
  it("gives every folder of src/ that holds code an index.ts", () => {
    const folders = [...new Set(sources.map((file) => dirname(file)))];
    expect(folders.length).toBeGreaterThan(25);
    expect(folders.filter((folder) => !sources.some((file) => dirname(file) === folder && isDoor(file)))).toEqual([]);
  });

  // A dynamic import() may name the module itself: it is how a module is left
  // out of startup, and esbuild puts everything a door leads to in the chunk
  // of whoever loads the door (docs/performance.md § Cold start). The
  // console's browser scripts and styles are text, not modules.
  it("lets a static import from another folder name that folder's index.ts, never a file inside it", () => {
    expect(pastTheDoor(sources, resolveImport)).toEqual([]);
  });

  it("finds an import past a door where there is one, so the check above can fail", () => {
    const importer = join(SRC, "routes/plan/index.ts");
    const inner = join(SRC, "routes/gate/direct/decide.ts");
    expect(pastTheDoor([importer], () => inner)).toContain("routes/plan/index.ts → routes/gate/direct/decide.ts");
    expect(pastTheDoor([importer], () => join(SRC, "routes/gate/direct/index.ts"))).toEqual([]);
  });
});

describe("the size of hand-written files", () => {
  it("keeps every hand-written file in src, clients and scripts at 600 lines or fewer", () => {
    const handWritten = ["src", "clients", "scripts"]
      .flatMap((folder) => filesUnder(join(ROOT, folder), /\.(ts|tsx|js|mjs|py|css)$/))
      .filter((file) => !/\.generated\.|[/\\]dist[/\\]|\.d\.ts$/.test(file))
      .filter((file) => !readFileSync(file, "utf8").slice(0, 300).includes("Generated by"));
    expect(handWritten.length).toBeGreaterThan(100);
    const over = handWritten
      .map((file) => ({ file: relative(ROOT, file), lines: readFileSync(file, "utf8").split("\n").length }))
      .filter(({ lines }) => lines > 600);
    expect(over).toEqual([]);
  });
});
