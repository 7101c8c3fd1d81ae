/**
 * @module routes/console/browser/replay.client
 *
 * The replay page's browser code (bundled with src/replay by
 * scripts/replay/bundle.mjs): reads the dropped file, parses and replays it
 * here, and draws the chart and the tables. It makes no request: the
 * pricing rows come with the page.
 *
 * @example
 * // <script src="/console/assets/replay.js" defer></script> on GET /console/replay
 */
import {
  CostSeries,
  parseTranscript,
  priceBook,
  ReplayTotals,
  replayTrace,
  reportBody,
  type SeedRow,
  sessionRow,
} from "../../../replay";

const $ = (id: string) => document.getElementById(id) as HTMLElement;
const pricing = JSON.parse($("replay-pricing").textContent ?? "{}") as { models: Record<string, SeedRow> };
const prices = priceBook(pricing.models);

/** Replays one file's text and shows the result. */
function show(name: string, text: string): void {
  const status = $("replay-status");
  const issuesOut = $("replay-issues");
  const started = performance.now();
  const { trace, issues } = parseTranscript(text, name);
  issuesOut.textContent = issues
    .map((i) => `${i.path}${i.line === null ? "" : `:${i.line}`}: expected ${i.expected}`)
    .join("\n");
  if (trace === null) {
    status.textContent = `${name}: nothing to replay`;
    $("replay-report").innerHTML = "";
    return;
  }
  const result = replayTrace(trace, prices);
  const totals = new ReplayTotals();
  const series = new CostSeries();
  totals.add(result);
  if ("skipped" in result) {
    status.textContent = `${name}: skipped: ${result.skipped}`;
    $("replay-report").innerHTML = "";
    return;
  }
  series.add(result);
  // reportBody escapes every value it prints; the SVG is built from numbers and escaped names.
  $("replay-report").innerHTML = reportBody(totals.summary(), [sessionRow(name, result)], series, result.mode);
  status.textContent = `${name}: ${trace.format}, ${result.calls} calls, replayed in ${Math.round(performance.now() - started)} ms${result.notes.length > 0 ? ` (${result.notes.join("; ")})` : ""}`;
}

function read(file: File): void {
  $("replay-status").textContent = `reading ${file.name}…`;
  void file.text().then((text) => show(file.name, text));
}

const input = $("replay-file") as HTMLInputElement;
input.addEventListener("change", () => {
  const file = input.files?.[0];
  if (file !== undefined) read(file);
});
const drop = $("replay-drop");
drop.addEventListener("dragover", (event) => {
  event.preventDefault();
  drop.classList.add("over");
});
drop.addEventListener("dragleave", () => drop.classList.remove("over"));
drop.addEventListener("drop", (event) => {
  event.preventDefault();
  drop.classList.remove("over");
  const file = event.dataTransfer?.files[0];
  if (file !== undefined) read(file);
});
