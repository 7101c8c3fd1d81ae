/**
 * One Analytics Engine data point, within the binding's limits: the write
 * that never fails a decision, and the blobs cut to fit (docs/analytics.md).
 *
 * @module
 */
/** Analytics Engine's limits: one index of at most 96 bytes, at most 20 blobs of at most 16 KB in all, at most 20 doubles. */
export const MAX_INDEX_BYTES = 96;
export const MAX_DOUBLES = 20;
export const MAX_BLOB_BYTES_TOTAL = 16 * 1024;

/** Writes a data point (a decision's or a plan's); a write that throws is logged and dropped. */
export function writePoint(dataset: AnalyticsEngineDataset, point: AnalyticsEngineDataPoint): void {
  try {
    dataset.writeDataPoint(point);
  } catch (error) {
    console.warn("offload-gate: Analytics Engine write failed", error instanceof Error ? error.message : error);
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Cuts a string to at most `maxBytes` of UTF-8 without splitting a character. */
export function truncateUtf8(text: string, maxBytes: number): string {
  // Fast path: a UTF-16 string of n units never takes more than 3n bytes.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // Step back over UTF-8 continuation bytes (10xxxxxx).
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return decoder.decode(bytes.subarray(0, end));
}

/** blob6, the reason: the only free-length blob, so the one shortened (a plan's too). */
export const REASON_BLOB = 5;

/** Fits the blobs in MAX_BLOB_BYTES_TOTAL, shortening only blob `shorten`. */
export function fitBlobs(blobs: string[], shorten: number): string[] {
  let units = 0;
  for (const blob of blobs) units += blob.length;
  if (units * 3 <= MAX_BLOB_BYTES_TOTAL) return blobs;
  // Every other blob is bounded (names, codes, ids), so they go in whole,
  // each within what is left, and the shortened one gets the rest.
  let budget = MAX_BLOB_BYTES_TOTAL;
  const fitted = blobs.map((blob, i) => {
    if (i === shorten) return blob;
    const kept = truncateUtf8(blob, budget);
    budget -= encoder.encode(kept).length;
    return kept;
  });
  fitted[shorten] = truncateUtf8(blobs[shorten] ?? "", Math.max(0, budget));
  return fitted;
}
