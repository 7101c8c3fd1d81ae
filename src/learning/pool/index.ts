/**
 * The front door of src/learning/pool/: the learner's pooling rule
 * (docs/design/learning.md §2), pure and free of the worker's storage and
 * ledger, so a Node script (scripts/replay/learned.ts) runs the same learner
 * the worker does without typing the Workers runtime.
 */
export * from "./pool";
