import { CACHE_TTLS, OFFLOAD_AT, type PricingMode } from "../../gate";
import type { GateConfig } from "../../storage/schemas";
import type { ConfigView } from "./config";
import type { TableRow } from "./data";

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
  const hint = (value: number | undefined) => (value === undefined ? "blank: the prior" : `blank: the prior, ${value}`);
  return (
    <form class="card" id="calc-form" aria-labelledby="calc-h" novalidate>
      <h2 id="calc-h">Calculator</h2>
      <div class="field">
        <label for="f-model">Model</label>
        <input
          id="f-model"
          name="model_name"
          list="model-list"
          required
          value={props.defaultModel}
          autocomplete="off"
        />
        <datalist id="model-list">
          {props.models.flatMap((row) =>
            row.status === "valid"
              ? [row.model, ...(row.row.aliases ?? [])].map((name) => <option value={name} />)
              : [],
          )}
        </datalist>
      </div>
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
        <div class="field">
          <label for="f-horizon">Horizon (turns)</label>
          <input
            id="f-horizon"
            name="horizon"
            type="number"
            min="0"
            step="1"
            placeholder={String(priors?.expected_conversation_depth ?? "")}
            aria-describedby="f-horizon-hint"
          />
          <small id="f-horizon-hint">{hint(priors?.expected_conversation_depth)}</small>
        </div>
        <div class="field">
          <label for="f-recall">Recall probability</label>
          <input
            id="f-recall"
            name="recall_probability"
            type="number"
            min="0"
            max="1"
            step="0.01"
            placeholder={String(priors?.p_recall ?? "")}
            aria-describedby="f-recall-hint"
          />
          <small id="f-recall-hint">{hint(priors?.p_recall)}</small>
        </div>
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
        <div class="field">
          <label for="f-cache-hit">Cache hit rate</label>
          <input
            id="f-cache-hit"
            name="cache_hit_rate"
            type="number"
            min="0"
            max="1"
            step="0.01"
            placeholder={String(priors?.cache_hit_rate ?? "")}
          />
        </div>
        <div class="field">
          <label for="f-context">Context tokens</label>
          <input id="f-context" name="context_tokens" type="number" min="0" step="1" />
        </div>
        <div class="field">
          <label for="f-offload">Stub placement</label>
          <select id="f-offload" name="offload_at" aria-describedby="f-offload-hint">
            {OFFLOAD_AT.map((at) => (
              <option value={at}>{at}</option>
            ))}
          </select>
          <small id="f-offload-hint">entry: before the output is read; retroactive: it is already cached</small>
        </div>
        <div class="field">
          <label for="f-suffix">Cached tokens after it</label>
          <input
            id="f-suffix"
            name="suffix_tokens"
            type="number"
            min="0"
            step="1"
            disabled
            aria-describedby="f-suffix-hint"
          />
          <small id="f-suffix-hint">retroactive only: rewritten when the stub goes in</small>
        </div>
        <div class="field">
          <label for="f-ttl">Cache TTL</label>
          <select id="f-ttl" name="cache_ttl">
            {CACHE_TTLS.map((ttl) => (
              <option value={ttl}>{ttl}</option>
            ))}
          </select>
        </div>
        <RangeField id="f-q" title="q range" name="q" integer={false} />
      </fieldset>
      <fieldset id="range-fields" class="two">
        <legend>Ranges (optional): fire only if every corner pays</legend>
        <RangeField id="f-h" title="Horizon range" name="Turns" integer={true} />
        <RangeField id="f-p" title="p_recall range" name="p_recall" integer={false} />
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
            <div class="field">
              <label for={`f-${name}`}>{label}</label>
              <input
                id={`f-${name}`}
                name={name}
                type="number"
                min="0"
                step="1"
                placeholder={String(priors?.[name] ?? "")}
              />
            </div>
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

/**
 * Two number inputs for a prior's [lo, hi]: `${id}-lo` and `${id}-hi`, each
 * with its own label ("<name> from", "<name> to").
 *
 * @example
 * <RangeField id="f-h" title="Horizon range" name="Turns" integer />
 */
function RangeField(props: { id: string; title: string; name: string; integer: boolean }) {
  const bounds = props.integer ? { min: "0", step: "1" } : { min: "0", max: "1", step: "0.01" };
  return (
    <div class="field">
      <label for={`${props.id}-lo`}>{props.title}</label>
      <div class="inline">
        <input id={`${props.id}-lo`} type="number" {...bounds} aria-label={`${props.name} from`} />
        <label for={`${props.id}-hi`} class="sr-only">
          {`${props.name} to`}
        </label>
        <input id={`${props.id}-hi`} type="number" {...bounds} />
      </div>
    </div>
  );
}
