import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import seed from "../../pricing.seed.json";
import { parseHistory, withEntry } from "../../src/storage/schemas/history";
import { historyKey, pendingKey, pricingKey, rowEntries } from "../../src/storage/rules/keys";
import { examplesOf, matchesDoc, type Example } from "../support/docs-examples";
import { call, resetState } from "../support/helpers";
import { ALICE_TOKEN } from "../support/secrets";

// Every doc, as text: an example added to any of them is run here.
const DOCS = import.meta.glob<string>(["../../docs/*.md", "../../docs/*/*.md", "../../README.md"], {
  query: "?raw",
  import: "default",
  eager: true,
});
const SEED = seed.models as Record<string, Record<string, unknown>>;

const adminExamples = (): Example[] =>
  Object.entries(DOCS)
    .flatMap(([doc, text]) => examplesOf(doc, text))
    .map((example) => ({ ...example, commands: example.commands.filter((curl) => curl.url.includes("/v1/admin")) }))
    .filter((example) => example.commands.length > 0);

// A worker seeded as `npm run dev` seeds it (`pricing seed`: each row and
// its first history version), plus the change the price sync would propose
// for gpt-5, which the pending example approves.
async function seedKv(): Promise<void> {
  await resetState();
  const histories = Object.entries(SEED).map(([model, row]) => ({
    key: historyKey(pricingKey(model)),
    value: JSON.stringify(
      withEntry(parseHistory(null)!, { action: "put", by: "cli:docs", before: null, after: row }, new Date()).doc,
    ),
  }));
  await Promise.all([...rowEntries(SEED), ...histories].map(({ key, value }) => env.PRICING.put(key, value)));
  const row = SEED["gpt-5"]!;
  await env.PRICING.put(
    pendingKey("gpt-5"),
    JSON.stringify({
      model: "gpt-5",
      kind: "changed",
      status: "pending",
      before: row,
      after: { ...row, output: 12 },
      fields: [{ field: "output", from: row.output, to: 12 }],
      source: "https://prices.example.test/prices.json",
      detected_at: "2026-11-30T06:17:00.000Z",
    }),
  );
}

beforeEach(seedKv);

describe("the docs' admin examples", () => {
  it("are found: the price update, its patch, the audit, the config and the pending changes", () => {
    const commands = adminExamples().flatMap((example) =>
      example.commands.map((curl) => `${curl.method} ${new URL(curl.url.replace("$GATE", "http://x")).pathname}`),
    );
    expect(commands).toEqual(
      expect.arrayContaining([
        "PATCH /v1/admin/pricing/gpt-5",
        "PUT /v1/admin/pricing/gpt-5",
        "GET /v1/admin/pricing/gpt-5/history",
        "POST /v1/admin/pricing/gpt-5/rollback",
        "PUT /v1/admin/config",
        "POST /v1/admin/pending/gpt-5/approve",
      ]),
    );
  });

  it("run against a seeded worker, in each doc's order, as written: 2xx, no warnings, the answers shown", async () => {
    const byDoc = new Map<string, Example[]>();
    for (const example of adminExamples()) byDoc.set(example.doc, [...(byDoc.get(example.doc) ?? []), example]);
    for (const [doc, examples] of byDoc) {
      await seedKv();
      for (const { commands, answer } of examples) {
        let last: unknown;
        for (const curl of commands) {
          const where = `${doc}: ${curl.method} ${curl.url}`;
          const headers = Object.fromEntries(
            Object.entries(curl.headers).map(([name, value]) => [name, value.replaceAll("$ADMIN", ALICE_TOKEN)]),
          );
          const path = curl.url.replace("$GATE", "").replace(/^https?:\/\/[^/]+/, "");
          const res = await call(path, { method: curl.method, headers, body: await withListedDigest(path, curl.body) });
          const text = await res.text();
          expect(res.status, `${where} → ${text}`).toBeLessThan(300);
          last = JSON.parse(text);
          // A write the docs show must not be one that warns (a field dropped, an odd ratio).
          const warnings =
            (last as { warnings?: unknown[]; write?: { warnings?: unknown[] } }).warnings ??
            (last as { write?: { warnings?: unknown[] } }).write?.warnings;
          expect(warnings ?? [], where).toEqual([]);
        }
        if (answer !== undefined)
          expect(
            matchesDoc(last, answer),
            `${doc}: answer ${JSON.stringify(last)} is not ${JSON.stringify(answer)}`,
          ).toBe(true);
      }
    }
  }, 30_000);

  it("show pricing rows as the seed holds them", () => {
    const rows = Object.entries(DOCS).flatMap(([doc, text]) =>
      [...text.matchAll(/```json\n([\s\S]*?)```/g)].flatMap((match) => {
        const value = JSON.parse(match[1]!) as Record<string, unknown>;
        return Array.isArray(value.aliases) && "input" in value ? [{ doc, value }] : [];
      }),
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const { doc, value } of rows) {
      const model = Object.keys(SEED).find((name) =>
        (SEED[name]!.aliases as string[] | undefined)?.includes((value.aliases as string[])[0]!),
      );
      expect(model, `${doc}: a row with alias ${(value.aliases as string[])[0]}`).toBeDefined();
      expect(value, doc).toEqual(SEED[model!]);
    }
  });
});

// The approval example sends back "the digest from step 1", as an admin does: read it from the listing.
const DIGEST_PLACEHOLDER = "<the digest from step 1>";
async function withListedDigest(path: string, body: string | undefined): Promise<string | undefined> {
  if (body === undefined || !body.includes(DIGEST_PLACEHOLDER)) return body;
  const model = decodeURIComponent(path.split("/")[4] ?? "");
  const listing = await (
    await call("/v1/admin/pending", { headers: { authorization: `Bearer ${ALICE_TOKEN}` } })
  ).json<{ changes: { model: string; digest: string }[] }>();
  const digest = listing.changes.find((change) => change.model === model)?.digest;
  expect(digest, `a pending change for ${model} in the listing`).toBeDefined();
  return body.replace(DIGEST_PLACEHOLDER, digest!);
}
