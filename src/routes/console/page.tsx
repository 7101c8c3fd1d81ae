import { raw } from "hono/html";
import type { PricingMode } from "../../gate";
import { AliasPanel, type AliasView } from "./aliases";
import type { ConsoleData } from "./browser";
import { Calculator } from "./calculator";
import { ConfigPanel, type ConfigView } from "./config";
import { STALE_AFTER_DAYS, type TableRow } from "./data";
import { LearningPanel } from "./learning";
import { PendingPanel, type PendingView } from "./pending";
import { PlanView } from "./plan-view";
import { SavingsPanel } from "./savings";
import { PricingTable } from "./table";

/** Everything the console page shows, read on the server. */
export interface ConsoleView {
  rows: TableRow[];
  config: ConfigView;
  /** The gate's pricing modes, from its own enum. */
  modes: readonly PricingMode[];
  /** The price sync's stored changes. */
  pending: PendingView;
  /** Every alias key, stray ones flagged; null when KV could not list them. */
  aliases: readonly AliasView[] | null;
  nonce: string;
  css: string;
  script: string;
}

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
  const data: ConsoleData = {
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
              Stub a tool output only when <code>reprefill_saving − (stub_carry + expected_recall_hop) &gt; 0</code>.
              Try a model, a size and a horizon; the curves show where the saving turns positive.
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
              <p id="decision" class="decision pending" data-testid="decision">
                Submit the calculator to ask the gate.
              </p>
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
              Each point is what the gate answers there, in the decision's pricing mode (
              <code>POST /v1/gate/curve</code>: the worker's own core, nothing recorded). The marked point is the
              decision above and the break-even is the API's. Above zero, stubbing saves money.
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
            <p id="pricing-cue" class="scroll-cue" aria-hidden="true" hidden>
              More columns to the right: scroll the table sideways →
            </p>
            <PricingTable rows={view.rows} />
            <button type="button" id="add-row" class="secondary" hidden>
              Add a model
            </button>
          </section>
          <AliasPanel aliases={view.aliases} />
          <PendingPanel pending={view.pending} />
          <SavingsPanel />
          <LearningPanel />
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
