// Black-box run of the hardening items against `wrangler dev` on loopback, with DECISION_ID_KEY set
// as docs/operations.md sets up production, the gate open (GATE_API_KEYS unset, tenant "default") as
// `npm run dev` runs it. Bounded: every call has a 10 s budget, the run 5 minutes. Rerun with
//   npx tsx scripts/harden/blackbox.ts
// It prints one line per check and exits 1 if any failed.
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { startLocalGate } from "../local-gate";

const PORT = Number(process.env.HARDEN_PORT ?? 8950);
const STATE = ".wrangler/harden-blackbox";
const ADMIN = `ops-bb:${randomBytes(16).toString("hex")}`;
const ADMIN_BARE = ADMIN.slice("ops-bb:".length);
const RUN_BUDGET_MS = 300_000;
const SIGNED = /^dec_\d+_[0-9a-f]{32}_[0-9a-f]{8}_[0-9a-f]{16}$/;
const CLEARING = {
  model_name: "claude-opus-4-6",
  horizon: 4,
  cache_hit_rate: 0.9,
  segments: [
    { tokens: 8_000 },
    { id: "c1", tokens: 42_000, recall_probability: 0.2, tool_name: "web_fetch" },
    { tokens: 1_500 },
    { id: "c2", tokens: 15_000, recall_probability: 0.25, tool_name: "grep" },
    { tokens: 3_000 },
    { id: "c3", tokens: 30_000, recall_probability: 0.1, tool_name: "web_fetch" },
    { tokens: 2_000 },
  ],
};

let failed = 0;
function check(item: string, what: string, ok: boolean, detail: unknown = ""): void {
  if (!ok) failed++;
  console.log(`${ok ? "ok  " : "FAIL"} ${item} ${what}${detail === "" ? "" : `: ${JSON.stringify(detail)}`}`);
}

/** Ledger objects wrangler dev has created: one SQLite file per Durable Object. */
function objects(): number {
  const root = join(STATE, "v3", "do");
  if (!existsSync(root)) return 0;
  let n = 0;
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".sqlite")) n++;
    }
  };
  walk(root);
  return n;
}

async function main(): Promise<void> {
  const gate = await startLocalGate({
    port: PORT,
    inspectorPort: PORT + 1,
    stateDir: STATE,
    vars: { ADMIN_TOKEN: ADMIN, DECISION_ID_KEY: randomBytes(32).toString("hex") },
  });
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    token?: string,
    headers: Record<string, string> = {},
  ) => {
    const res = await fetch(`${gate.baseUrl}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    let json: any = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: res.status, body: json };
  };
  const admin = (method: string, path: string, body?: unknown) => call(method, path, body, ADMIN);
  const firstIssue = (r: { body: any }) => r.body?.error?.issues?.[0]?.path ?? r.body?.results?.[0]?.issues?.[0]?.path;
  try {
    // 4. A new tenant's first session report creates only the object it writes.
    const before = objects();
    const bill = await call("POST", "/v1/sessions", {
      items: [
        {
          session_id: "bb-first",
          model_name: "claude-opus-4-6",
          turns: 2,
          usage: { input_tokens: 10, output_tokens: 5 },
        },
      ],
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    check("4", "first POST /v1/sessions is accepted", bill.body?.accepted === 1, bill.body);
    check("4", "and creates exactly one ledger object", objects() - before === 1, { before, after: objects() });

    // 1. The clearing route signs its id; an outcome sent at once is accepted, not unknown_decision.
    const answer = await call("POST", "/v1/context-management", { ...CLEARING, session_id: "bb-clear-1" });
    check(
      "1",
      "POST /v1/context-management answers a signed id",
      SIGNED.test(answer.body?.decision_id ?? ""),
      answer.body?.decision_id,
    );
    const id = answer.body.decision_id as string;
    const early = await call("POST", "/v1/outcomes", {
      items: [
        {
          decision_id: id,
          turns_after: 4,
          recalled: false,
          cached_turns: 4,
          cleared_tool_uses: 3,
          cleared_input_tokens: 86_970,
        },
      ],
    });
    check(
      "1",
      "an outcome sent at once is accepted",
      early.body?.results?.[0]?.status === "accepted",
      early.body?.results?.[0],
    );

    // 2. Clearing outcomes that claim more than the decision listed are invalid, naming the field.
    const other = await call("POST", "/v1/context-management", { ...CLEARING, session_id: "bb-clear-2" });
    // Tokens without uses are refused at once, even while the decision is still in the queue.
    const queued = await call("POST", "/v1/outcomes", {
      items: [
        {
          decision_id: other.body.decision_id,
          turns_after: 4,
          recalled: false,
          cleared_tool_uses: 0,
          cleared_input_tokens: 50_000,
        },
      ],
    });
    check(
      "2",
      "tokens without uses are invalid before the decision lands",
      firstIssue(queued) === "cleared_input_tokens",
      queued.body?.results?.[0],
    );
    // The rest is checked against the stored decision: wait (bounded) until the consumer has stored it.
    for (let k = 0; k < 40 && ((await call("GET", "/v1/savings")).body?.decisions ?? 0) < 2; k++)
      await new Promise((resolve) => setTimeout(resolve, 250));
    const inflate = (uses: number, tokens: number) => ({
      decision_id: other.body.decision_id,
      turns_after: 4,
      recalled: false,
      cleared_tool_uses: uses,
      cleared_input_tokens: tokens,
    });
    const inflated = await call("POST", "/v1/outcomes", {
      items: [inflate(1_000, 86_970), inflate(3, 1e12), inflate(0, 50_000)],
    });
    const paths = (inflated.body?.results ?? []).map((r: any) => `${r.status}:${r.issues?.[0]?.path}`);
    check(
      "2",
      "1000 uses, 1e12 tokens, tokens without uses are each invalid",
      JSON.stringify(paths) ===
        JSON.stringify(["invalid:cleared_tool_uses", "invalid:cleared_input_tokens", "invalid:cleared_input_tokens"]),
      paths,
    );
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const savings = await call("GET", "/v1/savings");
    check(
      "2",
      "GET /v1/savings realizes no inflated figure",
      Math.abs(savings.body?.net?.realized_usd ?? 0) < 1,
      savings.body?.net,
    );

    // 3. Replay import counts: integers with a cap; credible ranges hold their values at the cap.
    const none = { p_n: 0, p_r: 0, h_n: 0, h_sum: 0, h_sumsq: 0, q_n: 0, q_cached: 0, q_turns: 0 };
    const priors = (sums: Record<string, number>) => ({
      version: 1,
      source: "replay",
      tools: { read_file: { sums: { ...none, ...sums } } },
    });
    for (const [what, sums, path] of [
      ["p_n 1e308", { p_n: 1e308, p_r: 5e307, h_n: 1e308, h_sum: 1e308, h_sumsq: 1e308 }, "tools.read_file.sums.p_n"],
      ["fractional p_n 1e-300", { p_n: 1e-300, h_n: 1, h_sum: 1, h_sumsq: 1 }, "tools.read_file.sums.p_n"],
      ["h_n 1e300, h_sum 1e306", { h_n: 1e300, h_sum: 1e306, h_sumsq: 1e306 }, "tools.read_file.sums.h_n"],
      ["h_n one past the cap", { h_n: 10_000_001, h_sum: 10_000_001, h_sumsq: 10_000_001 }, "tools.read_file.sums.h_n"],
    ] as const) {
      const res = await admin("POST", "/v1/admin/learning/import?tenant=default", priors(sums));
      check("3", `an import of ${what} is a 400 naming ${path}`, res.status === 400 && firstIssue(res) === path, {
        status: res.status,
        path: firstIssue(res),
      });
    }
    const atCap = await admin(
      "POST",
      "/v1/admin/learning/import?tenant=default",
      priors({ p_n: 10_000_000, p_r: 5_000_000, h_n: 10_000_000, h_sum: 40_000_000, h_sumsq: 200_000_000 }),
    );
    check("3", "an import at the cap (10^7) is stored", atCap.status === 200, atCap.status);
    const view = await admin("GET", "/v1/admin/learning?tenant=default");
    const ranges: string[] = [];
    const visit = (node: any) => {
      if (node === null || typeof node !== "object") return;
      if (Array.isArray(node.range) && typeof node.value === "number") {
        const [lo, hi] = node.range;
        if (!(lo <= node.value && node.value <= hi)) ranges.push(`${node.value} not in [${lo}, ${hi}]`);
      }
      for (const child of Object.values(node)) visit(child);
    };
    visit(view.body);
    check(
      "3",
      "every credible range in the learning view contains its value",
      view.status === 200 && ranges.length === 0,
      ranges.slice(0, 3),
    );

    // 5. Usage with no billed count, or totals that contradict their parts, is invalid in every shape.
    const usages: [string, unknown, string][] = [
      ["gemini total only", { totalTokenCount: 100 }, "items.0.usage.promptTokenCount"],
      [
        "openai chat total off",
        { prompt_tokens: 10, completion_tokens: 5, total_tokens: 1_000 },
        "items.0.usage.total_tokens",
      ],
      [
        "openai responses total off",
        { input_tokens: 10, output_tokens: 5, total_tokens: 1_000 },
        "items.0.usage.total_tokens",
      ],
      [
        "gemini total off",
        { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 1_000 },
        "items.0.usage.totalTokenCount",
      ],
      ["bedrock total off", { inputTokens: 10, outputTokens: 5, totalTokens: 1_000 }, "items.0.usage.totalTokens"],
      [
        "anthropic top level above iterations",
        { input_tokens: 500, output_tokens: 1, iterations: [{ input_tokens: 9, output_tokens: 1 }] },
        "items.0.usage.input_tokens",
      ],
    ];
    for (const [what, usage, path] of usages) {
      const res = await call("POST", "/v1/sessions", {
        items: [{ session_id: `bb-${what.replace(/ /g, "-")}`, model_name: "claude-opus-4-6", turns: 1, usage }],
      });
      check(
        "5",
        `${what} is invalid naming ${path}`,
        res.body?.results?.[0]?.status === "invalid" && firstIssue(res) === path,
        res.body?.results?.[0],
      );
    }

    // 6a. The priors' history is bounded by bytes: a 75 KB import, many times over.
    const big: Record<string, unknown> = {};
    for (let t = 0; t < 700; t++)
      big[`tool_${t}`] = { sums: { ...none, p_n: 40, p_r: 8, h_n: 40, h_sum: 320, h_sumsq: 2_800 } };
    for (let k = 0; k < 12; k++) {
      (big.tool_0 as any).sums.p_r = k;
      await admin("POST", "/v1/admin/learning/import?tenant=default", { version: 1, source: "replay", tools: big });
    }
    const history = await admin("GET", "/v1/admin/learning/import/default/history");
    const bytes = Buffer.byteLength(JSON.stringify(history.body?.versions ?? []));
    check(
      "6a",
      "twelve 75 KB imports leave a history under 1 MiB",
      history.status === 200 && bytes <= 1_048_576 && history.body.versions.length >= 2,
      { versions: history.body?.versions?.length, bytes, import_bytes: Buffer.byteLength(JSON.stringify(big)) },
    );

    // 6b. Acks and imports for a tenant no key names and with no data are refused.
    const ghostImport = await admin(
      "POST",
      "/v1/admin/learning/import?tenant=ghost",
      priors({ p_n: 4, h_n: 4, h_sum: 8, h_sumsq: 16 }),
    );
    check(
      "6b",
      "an import for tenant ghost is a 404 naming tenant",
      ghostImport.status === 404 && firstIssue(ghostImport) === "tenant",
      ghostImport.status,
    );
    const ghostAck = await admin("PUT", "/v1/admin/learning/acks/ghost", {
      tool_name: "read_file",
      acknowledged: false,
    });
    check(
      "6b",
      "an ack for tenant ghost is a 404 naming tenant",
      ghostAck.status === 404 && firstIssue(ghostAck) === "tenant",
      ghostAck.status,
    );
    const ghostValue = await admin("GET", "/v1/admin/learning/import/ghost/history");
    check(
      "6b",
      "and nothing was written for ghost",
      (ghostValue.body?.versions ?? []).length === 0,
      ghostValue.body?.versions?.length,
    );

    // 6c. The local admin lockout, as docs/operations.md documents it under wrangler dev.
    const statuses: number[] = [];
    for (let k = 0; k < 12; k++)
      statuses.push(
        (await call("GET", "/v1/admin/pricing", undefined, `wrong-guess-${k}-${randomBytes(8).toString("hex")}`))
          .status,
      );
    const bare = await call("GET", "/v1/admin/pricing", undefined, ADMIN_BARE);
    const entry = await call("GET", "/v1/admin/pricing", undefined, ADMIN);
    check(
      "6c",
      "12 bad bare tokens from loopback: 401s, then 429 once past 10",
      statuses.slice(0, 10).every((s) => s === 401) && statuses.slice(10).every((s) => s === 429),
      statuses,
    );
    check("6c", "the right bare token is then locked out too (429), as documented", bare.status === 429, bare.status);
    check("6c", "the whole name:token entry still opens admin routes (200)", entry.status === 200, entry.status);
  } finally {
    await gate.stop();
  }
}

const timer = setTimeout(() => {
  console.error(`blackbox: over its ${RUN_BUDGET_MS} ms budget`);
  process.exit(2);
}, RUN_BUDGET_MS);
main()
  .then(() => {
    clearTimeout(timer);
    console.log(failed === 0 ? "all checks held" : `${failed} check(s) failed`);
    process.exit(failed === 0 ? 0 : 1);
  })
  .catch((error) => {
    clearTimeout(timer);
    console.error(error);
    process.exit(2);
  });
