/**
 * @module test/support/console-page
 *
 * The console tests' shared setup: a fresh state with the Opus row as the
 * console shows it (an alias, a provider, an https source, verified three
 * days ago), and GET / read whole.
 *
 * @example
 * beforeEach(withConsoleRow); const { html } = await consolePage();
 */
import { call, OPUS, putRow, resetState } from "./helpers";

/** An ISO date `days` before today (UTC). */
export const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);

/** Resets every binding and stores the Opus row the console tests read. */
export async function withConsoleRow(): Promise<void> {
  await resetState();
  await putRow("claude-opus-4-6", {
    ...OPUS,
    aliases: ["claude-opus-4-6-20260101"],
    provider: "anthropic",
    source: "https://platform.claude.com/docs/en/about-claude/pricing",
    verified_at: daysAgo(3),
  });
}

/** GET / and its HTML. */
export async function consolePage(): Promise<{ res: Response; html: string }> {
  const res = await call("/");
  return { res, html: await res.text() };
}
