import { CACHE_TTLS, OFFLOAD_AT, type PricingMode } from "../../gate";
import type { GateConfig } from "../../storage/schemas";
import type { ConfigView } from "./config";
import type { TableRow } from "./data";
import { type Bounds, COUNT, ModelField, NumberField, PROBABILITY, RangeField } from "./fields";

/** What the calculator reads of the console's view (./page.tsx's ConsoleView has it). */
export interface CalculatorView {
  config: ConfigView;
  modes: readonly PricingMode[];
}

/**
 * The calculator form: a gate request in fields, blank ones leaving the gate
 * its priors. The browser script turns it into POST /v1/gate and
 * POST /v1/gate/curve; the cache-aware fields (q, P, placement, TTL, the q
 * range) are shown and sent only in cache_aware mode.
 *
 * @example
 * <Calculator view={view} models={rows} defaultModel="claude-opus-4-6" priors={config} />
 */
export function Calculator(props: {
  view: CalculatorView;
  models: TableRow[];
  defaultModel: string;
  priors: Readonly<GateConfig> | null;
}) {
  const { view, priors } = props;
  const shown = (prior: number | null | undefined) => String(prior ?? "");
  // A field a blank leaves at the config's prior, which it shows and names.
  const priorField = (id: string, label: string, name: string, bounds: Bounds, prior?: number) => (
    <NumberField
      id={id}
      label={label}
      name={name}
      bounds={bounds}
      placeholder={shown(prior)}
      hint={prior === undefined ? "blank: the prior" : `blank: the prior, ${prior}`}
    />
  );
  return (
    <form class="card" id="calc-form" aria-labelledby="calc-h" novalidate>
      <h2 id="calc-h">Calculator</h2>
      <ModelField id="f-model" value={props.defaultModel}>
        <datalist id="model-list">
          {props.models.flatMap((row) =>
            row.status === "valid"
              ? [row.model, ...(row.row.aliases ?? [])].map((name) => <option value={name} />)
              : [],
          )}
        </datalist>
      </ModelField>
      <div class="field">
        <label for="f-size">Output size</label>
        <div class="inline">
          <input
            id="f-size"
            name="output_size"
            type="number"
            min="0"
            step="any"
            required
            value="20000"
            inputmode="decimal"
          />
          <label for="f-unit" class="sr-only">
            Output size unit
          </label>
          <select id="f-unit" name="output_unit">
            <option value="tokens">tokens</option>
            <option value="chars">characters</option>
          </select>
        </div>
      </div>
      <div class="two">
        {priorField("f-horizon", "Horizon (turns)", "horizon", COUNT, priors?.expected_conversation_depth)}
        {priorField("f-recall", "Recall probability", "recall_probability", PROBABILITY, priors?.p_recall)}
      </div>
      <div class="field">
        <label for="f-mode">Pricing mode</label>
        <select id="f-mode" name="pricing_mode">
          {view.modes.map((mode) => (
            <option value={mode} selected={mode === priors?.pricing_mode}>
              {mode === priors?.pricing_mode ? `${mode} (the config's default)` : mode}
            </option>
          ))}
        </select>
      </div>
      <fieldset id="cache-fields" class="two" hidden>
        <legend>Cache-aware inputs (sent only in cache_aware mode)</legend>
        <NumberField
          id="f-cache-hit"
          label="Cache hit rate"
          name="cache_hit_rate"
          bounds={PROBABILITY}
          placeholder={shown(priors?.cache_hit_rate)}
        />
        <NumberField id="f-context" label="Context tokens" name="context_tokens" bounds={COUNT} />
        <div class="field">
          <label for="f-offload">Stub placement</label>
          <select id="f-offload" name="offload_at" aria-describedby="f-offload-hint">
            {OFFLOAD_AT.map((at) => (
              <option value={at}>{at}</option>
            ))}
          </select>
          <small id="f-offload-hint">entry: before the output is read; retroactive: it is already cached</small>
        </div>
        <NumberField
          id="f-suffix"
          label="Cached tokens after it"
          name="suffix_tokens"
          bounds={COUNT}
          disabled
          hint="retroactive only: rewritten when the stub goes in"
        />
        <div class="field">
          <label for="f-ttl">Cache TTL</label>
          <select id="f-ttl" name="cache_ttl">
            {CACHE_TTLS.map((ttl) => (
              <option value={ttl}>{ttl}</option>
            ))}
          </select>
        </div>
        <RangeField id="f-q" title="q range" name="q" bounds={PROBABILITY} />
      </fieldset>
      <fieldset id="range-fields" class="two">
        <legend>Ranges (optional): fire only if every corner pays</legend>
        <RangeField id="f-h" title="Horizon range" name="Turns" bounds={COUNT} />
        <RangeField id="f-p" title="p_recall range" name="p_recall" bounds={PROBABILITY} />
      </fieldset>
      <details>
        <summary>More inputs</summary>
        <div class="two">
          {(
            [
              ["large_offload_threshold_tokens", "Pre-filter threshold (tokens)"],
              ["stub_tokens", "Stub tokens"],
              ["recall_input_tokens", "Recall input tokens"],
              ["recall_output_tokens", "Recall output tokens"],
            ] as const
          ).map(([name, label]) => (
            <NumberField
              id={`f-${name}`}
              label={label}
              name={name}
              bounds={COUNT}
              placeholder={shown(priors?.[name])}
            />
          ))}
        </div>
        <div class="field">
          <label for="f-gate-key">Gate key</label>
          <input id="f-gate-key" type="password" autocomplete="off" aria-describedby="f-gate-key-hint" />
          <small id="f-gate-key-hint">
            Only when the worker has GATE_API_KEYS; sent as a bearer token, kept in this tab.
          </small>
        </div>
      </details>
      <button type="submit" id="calc-submit">
        Ask the gate
      </button>
    </form>
  );
}
