/**
 * @module scripts/replay/read
 *
 * Reads one transcript as a stream: gzip (by its magic bytes, as archived
 * logs often are) through node:zlib, split into lines as the bytes arrive, a
 * line over the stated limit reported by number and dropped as it streams
 * (its bytes never held whole), progress reported while a large file reads.
 * What is kept is the file's text less its oversized lines, so memory is
 * bounded by the largest session, not the folder (docs/replay.md § Running).
 *
 * @example
 * const { text, oversized } = await readTranscript("runs/a.traj.json.gz");
 */
import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import { createGunzip } from "node:zlib";

/** The longest line replay reads: a longer one is reported and skipped. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** A file's text, and the lines dropped for their size. */
export interface ReadTranscript {
  text: string;
  /** 1-based numbers and byte sizes of the lines over the limit (left as blank lines, so numbering holds). */
  oversized: { line: number; bytes: number }[];
  lines: number;
}

const NEWLINE = 0x0a;

async function isGzip(path: string): Promise<boolean> {
  const handle = await open(path, "r");
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await handle.read(head, 0, 2, 0);
    return bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

/**
 * Reads a transcript, gzip or plain, line by line.
 *
 * @example
 * await readTranscript("big.jsonl", { maxLineBytes: 1024, onLines: (n) => console.error(n) })
 */
export async function readTranscript(
  path: string,
  options: { maxLineBytes?: number; onLines?: (lines: number) => void } = {},
): Promise<ReadTranscript> {
  const limit = options.maxLineBytes ?? MAX_LINE_BYTES;
  const file = createReadStream(path, { highWaterMark: 1 << 20 });
  const stream = (await isGzip(path)) ? file.pipe(createGunzip()) : file;
  const lines: string[] = [];
  const oversized: ReadTranscript["oversized"] = [];
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let dropping = false;
  let lastReport = 0;
  const endLine = () => {
    if (dropping) {
      oversized.push({ line: lines.length + 1, bytes: pendingBytes });
      lines.push("");
    } else lines.push(Buffer.concat(pending, pendingBytes).toString("utf8"));
    pending = [];
    pendingBytes = 0;
    dropping = false;
  };
  const take = (piece: Buffer) => {
    pendingBytes += piece.length;
    if (dropping) return;
    if (pendingBytes > limit) {
      dropping = true;
      pending = [];
    } else pending.push(piece);
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let start = 0;
      for (let nl = chunk.indexOf(NEWLINE, start); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
        take(chunk.subarray(start, nl));
        endLine();
        start = nl + 1;
      }
      if (start < chunk.length) take(chunk.subarray(start));
      if (options.onLines !== undefined && lines.length - lastReport >= 100_000) {
        lastReport = lines.length;
        options.onLines(lines.length);
      }
    }
  } finally {
    file.destroy();
  }
  if (pendingBytes > 0 || dropping) endLine();
  return { text: lines.join("\n"), oversized, lines: lines.length };
}
