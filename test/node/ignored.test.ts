import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

// What following the docs writes into a clone: each must be git-ignored, so
// the clone stays clean (docs/integrating.md, clients/*/README.md).
const LEFT_BY_THE_DOCS = [
  "clients/python/build/lib/offload_gate/client.py",
  "clients/python/src/offload_gate.egg-info/PKG-INFO",
  "offload-gate-client-0.1.0.tgz",
  "clients/typescript/offload-gate-client-0.1.0.tgz",
  ".wrangler/state/v3/kv/blobs/x",
  ".dev.vars",
  // npm test's direct-write configuration (vitest.config.ts).
  "wrangler.direct.toml",
];

const ignored = (path: string): boolean => {
  try {
    execFileSync("git", ["check-ignore", "-q", "--no-index", path]);
    return true;
  } catch {
    return false;
  }
};

describe("a clone after following the docs", () => {
  it("git-ignores what the installs and the dev server leave behind", () => {
    expect(LEFT_BY_THE_DOCS.filter((path) => !ignored(path))).toEqual([]);
  });

  it("still tracks the sources next to them", () => {
    expect(
      [
        "clients/python/pyproject.toml",
        "clients/python/build_backend/offload_gate_build.py",
        "clients/typescript/package.json",
      ].filter(ignored),
    ).toEqual([]);
  });
});

describe("the README's quick start on the machine's Node 20", () => {
  it("explains the EBADENGINE warnings npm install prints there", async () => {
    const { readFileSync } = await import("node:fs");
    const readme = readFileSync("README.md", "utf8");
    const quickStart = readme.slice(readme.indexOf("## Quick start"), readme.indexOf("## One gate call"));
    expect(quickStart).toMatch(/EBADENGINE[^.]*expected/);
    expect(readme.split("\n").length).toBeLessThanOrEqual(250);
  });
});
