/**
 * How much of a recalled original fits one page of an agent that cuts (or
 * saves to a file) a tool output past a number of characters, UTF-8 bytes
 * or lines: opencode's `Truncate`, the Copilot CLI's large-output handling.
 * Pure.
 */

/** What an agent passes whole: at most this many characters, UTF-8 bytes and lines. */
export interface PageLimits {
  chars: number;
  bytes: number;
  lines: number;
}

/**
 * How many characters from `offset` one page holds: at most `limits.chars`,
 * and no more UTF-8 bytes or lines than `limits` allow (a surrogate pair is
 * never split by the byte limit). At least one character while any is left.
 *
 * @example
 * fitPage("a\n".repeat(5_000), 0, { chars: 40_000, bytes: 49_152, lines: 1_900 }) // 3_800
 */
export function fitPage(text: string, offset: number, limits: PageLimits): number {
  const from = Math.max(0, Math.min(Math.trunc(offset), text.length));
  let lines = 0;
  let bytes = 0;
  let i = from;
  while (i < text.length && i - from < limits.chars) {
    const code = text.charCodeAt(i);
    const pair = code >= 0xd800 && code < 0xdc00 && i + 1 < text.length;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes > limits.bytes) break;
    i += pair ? 2 : 1;
    if (code === 10 && ++lines >= limits.lines) break;
  }
  return Math.max(Math.min(1, text.length - from), i - from);
}
