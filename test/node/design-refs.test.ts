import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// Code, tests and docs cite the design as `docs/design/<page>.md §n` (or
// `design/<page>.md ... §n` from docs/). A citation must land on a section that
// exists, and nothing may cite the old notes that lived outside the repository.
const ROOT = resolve(__dirname, "../..");
const DESIGN = join(ROOT, "docs/design");
const SCANNED = ["src", "test", "scripts", "bench", "docs", "e2e", "clients", "README.md"];
const OLD_NOTES = /\b(?:ledger-v2|adaptive-gate|economics-v2|cache-aware-gate|outcomes-ledger)\.md\b/;

function files(path: string): string[] {
  const full = join(ROOT, path);
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(full, { withFileTypes: true });
  } catch {
    return [full];
  }
  return entries.flatMap((entry) => {
    if (entry.name === "node_modules" || entry.name.startsWith(".") || entry.name === "__pycache__") return [];
    const rel = join(path, entry.name);
    if (entry.isDirectory()) return files(rel);
    return /\.(ts|tsx|js|mjs|md|py)$/.test(entry.name) ? [join(ROOT, rel)] : [];
  });
}

/** page → the section numbers its headings define ("4", "4.6"...). */
function sections(): Map<string, Set<string>> {
  const pages = new Map<string, Set<string>>();
  for (const name of readdirSync(DESIGN)) {
    if (!name.endsWith(".md")) continue;
    const text = readFileSync(join(DESIGN, name), "utf8");
    pages.set(name, new Set([...text.matchAll(/^#{2,4} §(\d+(?:\.\d+)*) /gm)].map((m) => m[1] as string)));
  }
  return pages;
}

/** Every (file, page, section) a citation names: the page, then each §n up to the next page or line end. */
function citations(): { file: string; page: string; section: string }[] {
  const found: { file: string; page: string; section: string }[] = [];
  for (const file of SCANNED.flatMap(files)) {
    const text = readFileSync(file, "utf8");
    for (const line of text.split("\n")) {
      for (const m of line.matchAll(
        /design\/([a-z-]+\.md)(?:\))?((?:[^§\n/]{0,40}?§\d+(?:\.\d+)*(?:\s*(?:–|,|and)\s*§?\d+(?:\.\d+)*)*)*)/g,
      )) {
        for (const s of (m[2] ?? "").matchAll(/§?(\d+(?:\.\d+)*)/g)) {
          if ((m[2] ?? "").includes("§"))
            found.push({ file: relative(ROOT, file), page: m[1] as string, section: s[1] as string });
        }
      }
    }
  }
  return found;
}

describe("the design's citations", () => {
  it("name only pages of docs/design that exist, and sections those pages define", () => {
    const pages = sections();
    const found = citations();
    expect(found.length).toBeGreaterThan(40);
    const broken = found
      .filter((c) => !(pages.get(c.page)?.has(c.section) ?? false))
      .map((c) => `${c.file}: ${c.page} §${c.section}`);
    expect(broken).toEqual([]);
  });

  it("never cite the old design notes that lived outside the repository", () => {
    const old = SCANNED.flatMap(files).filter((file) => OLD_NOTES.test(readFileSync(file, "utf8")));
    expect(old.map((file) => relative(ROOT, file))).toEqual([]);
  });

  it("find every page's numbered sections, so a citation has something to land on", () => {
    for (const [page, numbers] of sections()) if (page !== "README.md") expect(numbers.size, page).toBeGreaterThan(4);
  });
});
