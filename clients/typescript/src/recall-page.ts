/**
 * Paging a recalled original for tools whose results an agent cuts or
 * persists when large (Claude Code, MCP clients). Pure.
 */

/**
 * Characters one recall answers at most: Claude Code persists an MCP result
 * of 80,000 characters to a file and shows the model a 2 KB preview (and cuts
 * one at about 25,000 tokens), so a page stays well under both.
 */
export const RECALL_PAGE_CHARS = 40_000;

/**
 * One page of a recalled original: `chars` characters from `offset`, and what
 * is left, so a long original comes back in pages under the MCP result cut.
 *
 * @example
 * recallPage("abcdef", 2, 3) // "cde\n[recall: characters 2–5 of 6; 1 left: call again with offset 5]"
 */
export function recallPage(text: string, offset = 0, chars = RECALL_PAGE_CHARS): string {
  const from = Math.max(0, Math.min(Math.trunc(offset), text.length));
  const to = Math.min(text.length, from + chars);
  const left = text.length - to;
  if (from === 0 && left === 0) return text;
  const tail = left > 0 ? `; ${left} left: call again with offset ${to}` : "; the end";
  return `${text.slice(from, to)}\n[recall: characters ${from}–${to} of ${text.length}${tail}]`;
}
