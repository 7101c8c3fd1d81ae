/**
 * Where an offload session keeps the originals behind its stubs. In memory by
 * default; anything with `get` and `set` (a file, a blob store, Redis) will do,
 * synchronous or not.
 */

/**
 * The originals behind an offload session's stubs, by tool call id.
 *
 * @example
 * const files: RecallStore = {
 *   get: (id) => readFile(`/tmp/offload/${id}`, "utf8").catch(() => undefined),
 *   set: (id, text) => writeFile(`/tmp/offload/${id}`, text),
 * };
 */
export interface RecallStore {
  get(id: string): string | undefined | Promise<string | undefined>;
  set(id: string, text: string): void | Promise<void>;
}

/**
 * The default recall store: a Map, for the life of the session object.
 *
 * @example
 * const store = new MemoryRecallStore();
 * store.set("call_1", "…");
 * store.get("call_1"); // "…"
 */
export class MemoryRecallStore implements RecallStore {
  readonly #texts = new Map<string, string>();
  get(id: string): string | undefined {
    return this.#texts.get(id);
  }
  set(id: string, text: string): void {
    this.#texts.set(id, text);
  }
}
