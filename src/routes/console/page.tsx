import { raw } from "hono/html";
import type { Child } from "hono/jsx";
import type { PricingMode } from "../../gate";
import type { GateConfig } from "../../store/config";
import type { PricingRow } from "../../store/schema";
import { Calculator } from "./calculator";
import { STALE_AFTER_DAYS, type TableRow } from "./data";
import { PendingPanel, type PendingView } from "./pending";
import { PlanView } from "./plan-view";
import { SavingsPanel } from "./savings";

/** Everything the console page shows, read on the server. */
export interface ConsoleView {
  rows: TableRow[];
  config: { ok: true; config: Readonly<GateConfig> } | { ok: false; detail: string };
  /** The gate's pricing modes, from its own enum. */
  modes: readonly PricingMode[];
  /** The price sync's stored changes. */
  pending: PendingView;
  nonce: string;
  css: string;
  script: string;
}

const usd = (n: number | undefined) =>
  n === undefined ? "—" : `$${n.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 4 })}`;

const compact = (n: number) => (n >= 1000 && n % 1000 === 0 ? `${(n / 1000).toLocaleString("en-US")}k` : n.toLocaleString("en-US"));

const CONFIG_MEANING: Record<keyof GateConfig, string> = {
  expected_conversation_depth: "the horizon prior: turns an output would be carried",
  p_recall: "the recall-probability prior",
  large_offload_threshold_tokens: "the pre-filter: smaller outputs never fire",
  stub_tokens: "tokens the stub costs every turn",
  recall_input_tokens: "tokens a recall hop re-reads",
  recall_output_tokens: "tokens a recall hop answers with",
  pricing_cache_ttl_seconds: "how long an isolate keeps a row",
  pricing_max_stale_seconds: "how long past its TTL a row may serve while KV fails",
  kv_budget_ms: "the longest a request waits on KV",
  pricing_mode: "the pricing mode when a request names none",
  cache_hit_rate: "the cache-hit prior of cache-aware pricing",
  price_source_url: "the price file the scheduled sync compares with KV",
  price_source_providers: "the providers the sync compares (all in KV when unset)",
  holdout_fraction: "the share of sessions answered never-fire, to measure savings against",
  ledger_shards: "outcomes-ledger shards per tenant",
  ledger_retention_days: "how long the ledger keeps decisions, outcomes and bills",
  ledger_timeout_ms: "past this a ledger write counts as failed (the answer never waits)",
};

/**
 * The whole console: calculator, charts, pricing table and priors.
 * Server-rendered; the inline script only adds the calculator, the charts
 * and (with an admin token) editing.
 *
 * @example
 * c.html(<ConsolePage view={{ rows, config, modes: PRICING_MODES, pending, nonce, css, script }} />)
 */
export function ConsolePage({ view }: { view: ConsoleView }) {
  const valid = view.rows.filter((row) => row.status === "valid");
  const stale = valid.filter((row) => row.stale).length;
  const deprecated = valid.filter((row) => row.lifecycle === "deprecated").length;
  const retired = valid.filter((row) => row.lifecycle === "retired").length;
  const invalid = view.rows.length - valid.length;
  const priors = view.config.ok ? view.config.config : null;
  const defaultModel = valid.find((row) => row.model === "claude-opus-4-6")?.model ?? valid[0]?.model ?? "";
  // What the script needs: each row as stored, for the editor. The numbers
  // it draws come from the API, never from these rows.
  const data = {
    rows: Object.fromEntries(view.rows.map((row) => [row.model, row.status === "valid" ? row.row : row.raw])),
  };

  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>offload-gate · ops console</title>
        <link rel="icon" href="data:," />
        <style nonce={view.nonce}>{raw(view.css)}</style>
      </head>
      <body>
        <header class="masthead">
          <div class="wrap">
            <p class="eyebrow">offload-gate · ops console</p>
            <h1>Where does the gate flip?</h1>
            <p class="lede">
              Stub a tool output only when <code>reprefill_saving − (stub_carry + expected_recall_hop) &gt; 0</code>. Try
              a model, a size and a horizon; the curves show where the saving turns positive.
            </p>
            <nav aria-label="API">
              <a href="/docs">API docs</a>
              <a href="/openapi.json">openapi.json</a>
            </nav>
          </div>
        </header>
        <main class="wrap">
          <div class="calc-grid">
            <Calculator view={view} models={valid} defaultModel={defaultModel} priors={priors} />
            <section class="card" id="result" aria-labelledby="result-h" aria-live="polite">
              <h2 id="result-h">Decision</h2>
              <p id="decision" class="decision pending" data-testid="decision">Submit the calculator to ask the gate.</p>
              <p class="reason">
                <span class="label">reason</span> <code id="reason">—</code>
              </p>
              <table class="terms" id="terms">
                <caption class="sr-only">Priced terms of the decision, in USD</caption>
                <tbody />
              </table>
              <dl class="context" id="decision-context" />
              <p id="calc-status" class="status" role="status" />
            </section>
          </div>
          <section class="card" id="charts" aria-labelledby="charts-h">
            <h2 id="charts-h">
              Net saving for <span id="chart-model">—</span>
            </h2>
            <p class="note">
              Each point is what the gate answers there, in the decision's pricing mode (<code>POST /v1/gate/curve</code>:
              the worker's own core, nothing recorded). The marked point is the decision above and the break-even is the
              API's. Above zero, stubbing saves money.
            </p>
            <div class="charts">
              <figure>
                <figcaption id="chart-h-cap">against horizon (turns carried), output size fixed</figcaption>
                <svg id="chart-horizon" role="img" aria-labelledby="chart-h-cap" viewBox="0 0 560 300" />
              </figure>
              <figure>
                <figcaption id="chart-t-cap">against output tokens, horizon fixed</figcaption>
                <svg id="chart-tokens" role="img" aria-labelledby="chart-t-cap" viewBox="0 0 560 300" />
              </figure>
            </div>
          </section>
          <PlanView defaultModel={defaultModel} priors={priors} />
          <section class="card" id="pricing" aria-labelledby="pricing-h">
            <div class="section-head">
              <div>
                <h2 id="pricing-h">Pricing rows</h2>
                <p class="summary">
                  {valid.length} priced {valid.length === 1 ? "model" : "models"} · USD per million tokens ·{" "}
                  <span class={stale > 0 ? "warn-text" : ""}>
                    {stale} older than {STALE_AFTER_DAYS} days
                  </span>
                  {deprecated > 0 ? <span class="warn-text"> · {deprecated} deprecated</span> : null}
                  {retired > 0 ? <span class="bad-text"> · {retired} retired</span> : null}
                  {invalid > 0 ? <span class="bad-text"> · {invalid} invalid</span> : null}
                </p>
              </div>
              <form id="admin-form" class="admin-form">
                <label for="admin-token">Admin token</label>
                <input id="admin-token" type="password" autocomplete="off" spellcheck={false} />
                <button type="submit">Unlock editing</button>
                <p id="admin-status" class="status" role="status">
                  Read-only.
                </p>
              </form>
            </div>
            <PricingTable rows={view.rows} />
            <button type="button" id="add-row" class="secondary" hidden>
              Add a model
            </button>
          </section>
          <PendingPanel pending={view.pending} />
          <SavingsPanel />
          <ConfigPanel config={view.config} />
        </main>
        <EditDialog />
        <script type="application/json" id="console-data">
          {raw(JSON.stringify(data).replace(/</g, "\\u003c"))}
        </script>
        <script nonce={view.nonce}>{raw(view.script)}</script>
      </body>
    </html>
  );
}

function PricingTable({ rows }: { rows: TableRow[] }) {
  if (rows.length === 0) {
    return <p class="empty">No pricing rows in KV. Seed them with <code>npm run seed:local</code>.</p>;
  }
  return (
    <div class="table-scroll" tabindex={0} role="region" aria-labelledby="pricing-h">
      <table class="pricing" id="pricing-table">
        <thead>
          <tr>
            <th scope="col">Model</th>
            <th scope="col" class="num">Input</th>
            <th scope="col" class="num">Output</th>
            <th scope="col" class="num">Cache read</th>
            <th scope="col" class="num">
              <abbr title="5-minute cache write">Write 5m</abbr>
            </th>
            <th scope="col" class="num">
              <abbr title="1-hour cache write">Write 1h</abbr>
            </th>
            <th scope="col">Long context</th>
            <th scope="col">Source</th>
            <th scope="col">Verified</th>
          </tr>
        </thead>
        <tbody>{rows.map((row) => (row.status === "valid" ? <ValidRow row={row} /> : <InvalidRow row={row} />))}</tbody>
      </table>
    </div>
  );
}

function ValidRow({ row }: { row: Extract<TableRow, { status: "valid" }> }) {
  const r: PricingRow = row.row;
  const lc = r.long_context;
  return (
    <tr class={[row.stale ? "stale" : "", row.lifecycle === "active" ? "" : row.lifecycle].join(" ").trim() || undefined} data-model={row.model}>
      <th scope="row">
        <ModelName model={row.model} />
        {r.provider !== undefined ? <span class="provider">{r.provider}</span> : null}
        <LifecycleBadge row={row} />
        {(r.aliases ?? []).length > 0 ? <span class="aliases">aka {(r.aliases ?? []).join(", ")}</span> : null}
      </th>
      <td class="num">{usd(r.input)}</td>
      <td class="num">{usd(r.output)}</td>
      <td class="num">{usd(r.cache_read)}</td>
      <td class="num">{usd(r.cache_write)}</td>
      <td class="num">{usd(r.cache_write_1h)}</td>
      <td class="long-context">
        {lc === undefined ? "—" : `over ${compact(lc.threshold_tokens)}: ${usd(lc.input ?? r.input)} / ${usd(lc.output ?? r.output)}`}
      </td>
      <td>{r.source === undefined ? "—" : <SourceLink href={r.source} />}</td>
      <td class="verified">
        <Verified row={row} />
      </td>
    </tr>
  );
}

// Deprecated and retired rows say so, with the date and what replaces them.
function LifecycleBadge({ row }: { row: Extract<TableRow, { status: "valid" }> }): Child {
  if (row.lifecycle === "active") return null;
  const { retires_at: retiresAt, deprecated_at: deprecatedAt, replaced_by: replacement } = row.row;
  const then = row.lifecycle === "retired" ? `retired ${retiresAt}` : retiresAt === undefined ? `deprecated ${deprecatedAt}` : `retires ${retiresAt}`;
  const priced = replacement === undefined ? (row.lifecycle === "retired" ? "; unpriced" : "") : `; priced as ${replacement}${row.lifecycle === "retired" ? "" : " from then"}`;
  return <span class={`badge ${row.lifecycle === "retired" ? "bad" : "warn"} lifecycle`}>{`${then}${priced}`}</span>;
}

function InvalidRow({ row }: { row: Extract<TableRow, { status: "invalid" }> }) {
  return (
    <tr class="invalid" data-model={row.model}>
      <th scope="row">
        <ModelName model={row.model} />
      </th>
      <td colspan={8}>
        <span class="badge bad">invalid</span> {row.detail}. The gate answers <code>pricing_unavailable</code> for this
        model until the row is fixed.
      </td>
    </tr>
  );
}

function Verified({ row }: { row: Extract<TableRow, { status: "valid" }> }): Child {
  if (row.row.verified_at === undefined || row.ageDays === null) return <span class="badge warn">⚠ never verified</span>;
  const age = `${row.ageDays} ${row.ageDays === 1 ? "day" : "days"} old`;
  return (
    <>
      <time datetime={row.row.verified_at}>{row.row.verified_at}</time>{" "}
      {row.stale ? <span class="badge warn">⚠ {age}</span> : <span class="age">{age}</span>}
    </>
  );
}

function SourceLink({ href }: { href: string }) {
  let url: URL | null = null;
  try {
    url = new URL(href);
  } catch {
    // The schema only admits URLs; show it as it is if that ever changes.
  }
  // Only a web page is a link: a file: source (a local import) is shown as text.
  if (url === null || (url.protocol !== "https:" && url.protocol !== "http:")) return <span class="source">{href}</span>;
  const host = url.hostname;
  return (
    <a href={href} rel="noreferrer noopener" class="source">
      {host}
    </a>
  );
}

// The edit button sits by the name, so editing adds no column to a wide table.
const ModelName = ({ model }: { model: string }) => (
  <span class="model-head">
    <span class="model">{model}</span>
    <button type="button" class="edit secondary" data-edit={model} hidden aria-label={`Edit ${model}`}>
      Edit
    </button>
  </span>
);

function ConfigPanel({ config }: { config: ConsoleView["config"] }) {
  return (
    <section class="card" id="config" aria-labelledby="config-h">
      <h2 id="config-h">Gate config priors</h2>
      {config.ok ? (
        <table class="config">
          <caption class="sr-only">The gate config in force: config:gate over the defaults</caption>
          <tbody>
            {(Object.keys(CONFIG_MEANING) as (keyof GateConfig)[]).map((key) => (
              <tr>
                <th scope="row">
                  <code>{key}</code>
                </th>
                <td class="num">{String(typeof config.config[key] === "number" ? config.config[key].toLocaleString("en-US") : config.config[key])}</td>
                <td class="meaning">{CONFIG_MEANING[key]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p class="banner bad" role="alert">
          {config.detail}. Until it is fixed the gate does not fire (<code>pricing_unavailable</code>).
        </p>
      )}
    </section>
  );
}

function EditDialog() {
  return (
    <dialog id="edit-dialog" aria-labelledby="edit-h">
      <form id="edit-form" method="dialog">
        <h2 id="edit-h">Edit pricing row</h2>
        <div class="field">
          <label for="edit-model">Model</label>
          <input id="edit-model" required autocomplete="off" />
        </div>
        <div class="field">
          <label for="edit-json">Row (JSON, USD per million tokens)</label>
          <textarea id="edit-json" rows={14} spellcheck={false} aria-describedby="edit-status" />
        </div>
        <p id="edit-status" class="status" role="status" />
        <div class="actions">
          <button type="button" id="edit-cancel" class="secondary">
            Cancel
          </button>
          <button type="submit" id="edit-save">
            Save with PUT /v1/admin/pricing/:model
          </button>
        </div>
      </form>
    </dialog>
  );
}
