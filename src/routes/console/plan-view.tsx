import type { GateConfig } from "../../storage/schemas";
import { WORKED_EXAMPLE_P1 } from "../plan";
import { COUNT, ModelField, NumberField, PROBABILITY } from "./fields";

/**
 * The console's clearing-plan view: paste a history (JSON) or build one,
 * ask POST /v1/plan, and see which outputs to stub and where the cached
 * prefix breaks, drawn as a bar of the history (./browser/plan.client.js).
 * The history starts as the design note's worked example P1.
 *
 * @example
 * <PlanView defaultModel="claude-opus-4-6" priors={config} />
 */
export function PlanView({ defaultModel, priors }: { defaultModel: string; priors: Readonly<GateConfig> | null }) {
  // One segment a line: easy to read and to edit by hand.
  const history = `[\n  ${WORKED_EXAMPLE_P1.segments.map((segment) => JSON.stringify(segment)).join(",\n  ")}\n]`;
  return (
    <section class="card" id="plan" aria-labelledby="plan-h">
      <h2 id="plan-h">Clearing plan: which cached outputs to stub now</h2>
      <p class="note">
        The history is cached; stubbing an old tool output rewrites everything after it, so once one is stubbed, later
        ones are nearly free. Paste a history (a list of segments, or a whole <code>POST /v1/plan</code> body) or build
        one; the gate weighs every set of stubs.
      </p>
      <div class="plan-grid">
        <form id="plan-form" novalidate>
          <div class="two">
            <ModelField id="p-model" value={defaultModel} />
            <NumberField id="p-horizon" label="Horizon (turns)" name="horizon" bounds={COUNT} value="4" />
            <NumberField
              id="p-cache-hit"
              label="Cache hit rate"
              name="cache_hit_rate"
              bounds={PROBABILITY}
              placeholder={String(priors?.cache_hit_rate ?? "")}
            />
            <div class="field">
              <label for="p-ttl">Cache TTL</label>
              <select id="p-ttl" name="cache_ttl">
                <option value="5m">5 minutes</option>
                <option value="1h">1 hour</option>
              </select>
            </div>
          </div>
          <div class="field">
            <label for="p-history">History (JSON)</label>
            <textarea
              id="p-history"
              name="segments"
              rows={12}
              wrap="off"
              spellcheck={false}
              aria-describedby="p-history-hint"
            >
              {history}
            </textarea>
            <small id="p-history-hint">
              In order: <code>{'{"tokens": n}'}</code> for fixed context,{" "}
              <code>{'{"id", "tokens", "recall_probability"?}'}</code> for a tool output that may be stubbed.
            </small>
          </div>
          <fieldset class="plan-build">
            <legend>Add a segment</legend>
            <NumberField id="p-add-tokens" label="Tokens" bounds={COUNT} value="20000" />
            <div class="field">
              <label for="p-add-id">Tool output id</label>
              <input id="p-add-id" type="text" autocomplete="off" placeholder="blank: context" />
            </div>
            <NumberField
              id="p-add-p"
              label="Recall probability"
              bounds={PROBABILITY}
              placeholder={String(priors?.p_recall ?? "")}
            />
            <div class="plan-build-actions">
              <button type="button" id="p-add" class="secondary">
                Add to history
              </button>
              <button type="button" id="p-clear" class="secondary">
                Clear
              </button>
            </div>
          </fieldset>
          <button type="submit" id="plan-submit">
            Plan
          </button>
          <p id="plan-status" class="status" role="status" />
        </form>
        <div id="plan-result" aria-live="polite">
          <p id="plan-decision" class="decision pending" data-testid="plan-decision">
            Submit a history to plan.
          </p>
          <figure class="plan-figure">
            <figcaption id="plan-bar-cap">
              The history now and after the plan, to scale; the cached prefix is what stays.
            </figcaption>
            <svg id="plan-bar" role="img" aria-labelledby="plan-bar-cap" viewBox="0 0 800 150" />
          </figure>
          <ul class="plan-legend" aria-label="Legend">
            <li>
              <span class="swatch fixed" /> fixed context
            </li>
            <li>
              <span class="swatch kept" /> tool output, kept
            </li>
            <li>
              <span class="swatch stubbed" /> tool output, stubbed
            </li>
            <li>
              <span class="swatch small" /> below the pre-filter
            </li>
            <li>
              <span class="swatch rewritten" /> written again
            </li>
          </ul>
          <table class="terms" id="plan-candidates">
            <caption class="sr-only">Each candidate: stubbed or kept, and the net of stubbing it alone</caption>
            <thead>
              <tr>
                <th scope="col">Output</th>
                <th scope="col" class="num">
                  Tokens
                </th>
                <th scope="col">Plan</th>
                <th scope="col" class="num">
                  Alone
                </th>
              </tr>
            </thead>
            <tbody />
          </table>
          <p class="reason">
            <span class="label">reason</span> <code id="plan-reason">—</code>
          </p>
        </div>
      </div>
    </section>
  );
}
