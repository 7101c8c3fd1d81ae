import type { Child } from "hono/jsx";

/**
 * The fields the console's forms share (the calculator, ./calculator.tsx,
 * and the plan view, ./plan-view.tsx), so an input's bounds and its hint's
 * wiring are written once.
 */

/** A count's bounds (tokens, turns). */
export const COUNT = { min: "0", step: "1" } as const;

/** A probability's or a rate's bounds. */
export const PROBABILITY = { min: "0", max: "1", step: "0.01" } as const;

/** A number input's bounds: a count's or a probability's. */
export type Bounds = typeof COUNT | typeof PROBABILITY;

/**
 * A labelled number input in a `field` div. A `hint` goes below it, in
 * `${id}-hint`, which the input names as its description; a `placeholder`
 * is usually the config's prior.
 *
 * @example
 * <NumberField id="f-recall" label="Recall probability" name="recall_probability" bounds={PROBABILITY} placeholder="0.25" hint="blank: the prior, 0.25" />
 */
export function NumberField(props: {
  id: string;
  label: string;
  name?: string;
  bounds: Bounds;
  value?: string;
  placeholder?: string;
  disabled?: boolean;
  hint?: string;
}) {
  const hintId = props.hint === undefined ? undefined : `${props.id}-hint`;
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        name={props.name}
        type="number"
        {...props.bounds}
        value={props.value}
        placeholder={props.placeholder}
        disabled={props.disabled}
        aria-describedby={hintId}
      />
      {hintId === undefined ? null : <small id={hintId}>{props.hint}</small>}
    </div>
  );
}

/**
 * The model's name, suggested from the `model-list` datalist (the calculator
 * renders it, as `children` here, and the plan view uses it too).
 *
 * @example
 * <ModelField id="p-model" value="claude-opus-4-6" />
 */
export function ModelField(props: { id: string; value: string; children?: Child }) {
  return (
    <div class="field">
      <label for={props.id}>Model</label>
      <input id={props.id} name="model_name" list="model-list" required value={props.value} autocomplete="off" />
      {props.children}
    </div>
  );
}

/**
 * Two number inputs for a prior's [lo, hi]: `${id}-lo` and `${id}-hi`, each
 * with its own label ("<name> from", "<name> to").
 *
 * @example
 * <RangeField id="f-h" title="Horizon range" name="Turns" bounds={COUNT} />
 */
export function RangeField(props: { id: string; title: string; name: string; bounds: Bounds }) {
  return (
    <div class="field">
      <label for={`${props.id}-lo`}>{props.title}</label>
      <div class="inline">
        <input id={`${props.id}-lo`} type="number" {...props.bounds} aria-label={`${props.name} from`} />
        <label for={`${props.id}-hi`} class="sr-only">
          {`${props.name} to`}
        </label>
        <input id={`${props.id}-hi`} type="number" {...props.bounds} />
      </div>
    </div>
  );
}
