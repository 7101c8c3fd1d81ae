import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// Docs move between pages as they grow (docs/integrating/ was one page): a
// relative link must still land on a file that exists, and an anchor on a
// heading that page has, as GitHub slugs it.
const ROOT = resolve(__dirname, "../..");

function markdown(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = join(dir, entry.name);
    if (entry.isDirectory()) return markdown(rel);
    return entry.name.endsWith(".md") ? [join(ROOT, rel)] : [];
  });
}

const PAGES = [
  ...markdown("docs"),
  join(ROOT, "README.md"),
  join(ROOT, "clients/python/README.md"),
  join(ROOT, "clients/typescript/README.md"),
];

const withoutCode = (text: string) => text.replace(/```[\s\S]*?```/g, "");

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of withoutCode(text).split("\n")) {
    const heading = /^#{1,6} (.*)$/.exec(line);
    if (heading === null) continue;
    const base = heading[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}_\- ]/gu, "")
      .replace(/ /g, "-");
    const n = seen.get(base);
    seen.set(base, n === undefined ? 0 : n + 1);
    anchors.add(n === undefined ? base : `${base}-${n + 1}`);
  }
  for (const match of text.matchAll(/<a (?:id|name)="([^"]+)"/g)) anchors.add(match[1]!);
  return anchors;
}

function brokenLinks(): string[] {
  const anchors = new Map(PAGES.map((page) => [page, anchorsOf(readFileSync(page, "utf8"))]));
  const broken: string[] = [];
  for (const page of PAGES) {
    for (const match of withoutCode(readFileSync(page, "utf8")).matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1]!;
      if (/^(https?:|mailto:)/.test(target)) continue;
      const [path = "", anchor] = target.split("#");
      const file = path === "" ? page : resolve(dirname(page), path);
      const where = `${relative(ROOT, page)} → ${target}`;
      if (!existsSync(file)) broken.push(`${where}: no such file`);
      else if (anchor !== undefined && file.endsWith(".md") && !anchors.get(file)?.has(anchor))
        broken.push(`${where}: no such heading`);
    }
  }
  return broken;
}

describe("the docs' relative links", () => {
  it("each land on a file that exists, and on a heading that page has", () => {
    expect(brokenLinks()).toEqual([]);
  });

  it("are checked at all: the guide links to its adapter pages", () => {
    const guide = readFileSync(join(ROOT, "docs/integrating.md"), "utf8");
    expect(guide).toContain("](integrating/claude-agent-sdk.md)");
    expect(anchorsOf("## Which hook does what\n## A `b`: c\n## A `b`: c")).toEqual(
      new Set(["which-hook-does-what", "a-b-c", "a-b-c-1"]),
    );
  });
});
