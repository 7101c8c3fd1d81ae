/**
 * The console's savings panel: the shell the server renders. Its script
 * (browser/savings.client.js) fills it from GET /v1/savings with the gate
 * key typed in the calculator, if any: predicted against realized net over
 * time, realized recall, horizon and cache hit rate against the priors, and
 * and, per tool, the holdout comparison with its verdict from the confidence
 * sequence, then the tenant-wide verdict that combines them.
 *
 * @example
 * <SavingsPanel />
 */
export function SavingsPanel() {
  return (
    <section class="card" id="savings" aria-labelledby="savings-h">
      <div class="section-head">
        <div>
          <h2 id="savings-h">Did the gate save money?</h2>
          <p class="note">
            From the outcomes ledger (<code>GET /v1/savings</code>), for the tenant of the gate key above, or{" "}
            <code>default</code> while the gate is open. Agents report outcomes and session bills; docs/ledger.md says
            how each figure is priced.
          </p>
        </div>
        <form id="savings-form" class="savings-form">
          <label for="s-window">Window</label>
          <select id="s-window">
            <option value="3600000">last hour</option>
            <option value="86400000" selected>
              last 24 hours
            </option>
            <option value="604800000">last 7 days</option>
            <option value="2592000000">last 30 days</option>
          </select>
          <label for="s-tool">Tool</label>
          <input id="s-tool" placeholder="every tool" autocomplete="off" spellcheck={false} />
          <label for="s-model">Model</label>
          <input id="s-model" placeholder="every model" autocomplete="off" spellcheck={false} />
          <button type="submit" id="s-load">
            Load
          </button>
        </form>
      </div>
      <p id="savings-status" class="status" role="status" aria-live="polite">
        Not loaded yet.
      </p>
      <div id="savings-body" hidden>
        <dl class="tiles" id="savings-tiles" />
        <div class="savings-grid">
          <figure>
            <figcaption id="savings-chart-cap">
              Net per time bucket, fired decisions with an outcome: <span class="key predicted">predicted</span> and{" "}
              <span class="key realized">realized</span>
            </figcaption>
            <svg id="savings-chart" role="img" aria-labelledby="savings-chart-cap" viewBox="0 0 560 260" />
          </figure>
          <div class="savings-scroll">
            <table class="terms" id="savings-priors">
              <caption>Realized against the priors the decisions used</caption>
              <thead>
                <tr>
                  <th scope="col">figure</th>
                  <th scope="col">realized</th>
                  <th scope="col">95% interval</th>
                  <th scope="col">prior</th>
                  <th scope="col">n</th>
                </tr>
              </thead>
              <tbody />
            </table>
          </div>
        </div>
        <h3 id="holdout-h">Holdout against treatment, per tool</h3>
        <div id="savings-holdout" aria-labelledby="holdout-h">
          <div class="savings-scroll">
            <table class="terms" id="savings-tools">
              <caption class="sr-only">
                Per tool: its sessions in each arm, treatment − holdout per session with its confidence sequence, the
                verdict
              </caption>
              <thead>
                <tr>
                  <th scope="col">tool</th>
                  <th scope="col">sessions treated / held out</th>
                  <th scope="col">treatment − holdout per session</th>
                  <th scope="col">95% interval, valid at any look</th>
                  <th scope="col">verdict</th>
                  <th scope="col">Welch, one look (information only)</th>
                </tr>
              </thead>
              <tbody />
            </table>
          </div>
          <p id="savings-verdict" class="verdict" data-testid="savings-verdict">
            Verdict: not read yet. Load the report to compare the arms.
          </p>
          <svg id="savings-interval" role="img" aria-labelledby="savings-verdict" viewBox="0 0 560 66" />
        </div>
      </div>
    </section>
  );
}
