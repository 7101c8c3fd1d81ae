/**
 * The configured price source: fetched with a size bound and a time bound,
 * then parsed as a LiteLLM-format JSON object of model entries. Anything
 * else is reported, never guessed at.
 */

/** The largest source file read: LiteLLM's whole file is a few MB. */
export const MAX_SOURCE_BYTES = 8 * 1024 * 1024;
/** How long a fetch of the source may take, headers and body. */
export const SOURCE_TIMEOUT_MS = 20_000;

/** A fetched-and-parsed source, or why there is none. */
export type SourceResult =
  | { ok: true; entries: ReadonlyMap<string, Readonly<Record<string, unknown>>> }
  | { ok: false; detail: string };

/**
 * Fetches the source and reads at most MAX_SOURCE_BYTES of it.
 *
 * @example
 * const text = await fetchSource("https://example.com/prices.json", fetch);
 * if (!text.ok) console.error(text.detail);
 */
export async function fetchSource(
  url: string,
  fetcher: typeof fetch,
): Promise<{ ok: true; text: string } | { ok: false; detail: string }> {
  let response: Response;
  try {
    response = await fetcher(url, {
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(SOURCE_TIMEOUT_MS),
    });
  } catch (error) {
    return { ok: false, detail: `fetching ${url} failed: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!response.ok) {
    await response.body?.cancel();
    return { ok: false, detail: `fetching ${url} answered HTTP ${response.status}` };
  }
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > MAX_SOURCE_BYTES) {
    await response.body?.cancel();
    return { ok: false, detail: `${url} is ${declared} bytes, over the ${MAX_SOURCE_BYTES}-byte limit` };
  }
  if (response.body === null) return { ok: false, detail: `${url} answered with no body` };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      // Counted as it streams: a missing or false Content-Length does not get past the limit.
      if (size > MAX_SOURCE_BYTES) {
        await reader.cancel();
        return { ok: false, detail: `${url} is over the ${MAX_SOURCE_BYTES}-byte limit` };
      }
      chunks.push(value);
    }
  } catch (error) {
    return { ok: false, detail: `reading ${url} failed: ${error instanceof Error ? error.message : String(error)}` };
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  try {
    return { ok: true, text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes) };
  } catch {
    return { ok: false, detail: `${url} is not UTF-8 text` };
  }
}

/**
 * Parses the source's text: a JSON object whose values are model entries
 * (objects). LiteLLM's `sample_spec` is left out. Keys are read as own
 * properties into a Map, so a `__proto__` key is just a name.
 *
 * @example
 * parseSource('{"gpt-5": {"input_cost_per_token": 1.25e-6}}') // { ok: true, entries: Map { "gpt-5" => {...} } }
 * parseSource("[]") // { ok: false, detail: "the source is not a JSON object of model entries" }
 */
export function parseSource(text: string): SourceResult {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, detail: `the source is not JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!isObject(json)) return { ok: false, detail: "the source is not a JSON object of model entries" };
  const entries = new Map<string, Readonly<Record<string, unknown>>>();
  for (const key of Object.keys(json)) {
    const value = json[key];
    if (key === "sample_spec" || !isObject(value)) continue;
    entries.set(key, value);
  }
  if (entries.size === 0) return { ok: false, detail: "the source has no model entries" };
  return { ok: true, entries };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
