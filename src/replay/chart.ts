/**
 * @module replay/chart
 *
 * The chart a person would rather look at than the table: cumulative cost
 * per call under each policy, as inline SVG (no script, no CDN), and the
 * running series it draws, kept to a bounded number of points however many
 * calls a folder holds (the stride doubles when the points run out). Pure.
 */
import type { TraceReplay } from "./run";

/** At most this many points per policy. */
const MAX_POINTS = 600;

/** Cumulative cost per call, per policy, over every trace added. */
export class CostSeries {
  private stride = 1;
  private calls = 0;
  private readonly base = new Map<string, number>();
  readonly points = new Map<string, number[]>();
  /** The call index of each point. */
  readonly at: number[] = [];

  add(result: TraceReplay): void {
    for (let i = 0; i < result.calls; i++) {
      const call = this.calls + i;
      if (call % this.stride !== 0) continue;
      this.at.push(call);
      for (const p of result.policies) {
        const list = this.points.get(p.name) ?? [];
        list.push((this.base.get(p.name) ?? 0) + p.cumulative[i]!);
        this.points.set(p.name, list);
      }
      if (this.at.length >= MAX_POINTS) this.halve();
    }
    for (const p of result.policies)
      this.base.set(p.name, (this.base.get(p.name) ?? 0) + (p.cumulative[p.cumulative.length - 1] ?? 0));
    this.calls += result.calls;
  }

  private halve(): void {
    this.stride *= 2;
    const keep = (_: unknown, k: number) => this.at[k]! % this.stride === 0;
    const at = this.at.filter(keep);
    for (const [name, list] of this.points) this.points.set(name, list.filter(keep));
    this.at.length = 0;
    this.at.push(...at);
  }
}

const COLORS = [
  "#1f2937",
  "#2563eb",
  "#16a34a",
  "#9333ea",
  "#dc2626",
  "#ea580c",
  "#ca8a04",
  "#0891b2",
  "#db2777",
  "#65a30d",
  "#475569",
  "#7c3aed",
];

/** Dash patterns, one per line: the legend must not rely on colour alone. */
const DASHES = ["", "6 3", "2 3", "10 3 2 3", "1 2", "8 4 2 4 2 4", "4 4", "12 4", "3 6", "6 2 2 2", "14 3 3 3", "2 6"];

const escapeXml = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

/**
 * The chart as an SVG element.
 *
 * @example
 * chartSvg(series) // '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 900 420" role="img" …'
 */
export function chartSvg(series: CostSeries): string {
  const w = 900;
  const h = 420;
  const left = 70;
  const right = 210;
  const top = 20;
  const bottom = 40;
  const maxX = Math.max(1, ...series.at);
  const maxY = Math.max(1e-9, ...[...series.points.values()].flatMap((l) => l));
  const x = (v: number) => left + ((w - left - right) * v) / maxX;
  const y = (v: number) => h - bottom - ((h - top - bottom) * v) / maxY;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} ${h}" role="img" aria-label="Cumulative cost per call under each policy" class="replay-chart">`,
    `<line x1="${left}" y1="${h - bottom}" x2="${w - right}" y2="${h - bottom}" stroke="#999"/>`,
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${h - bottom}" stroke="#999"/>`,
    `<text x="${(left + w - right) / 2}" y="${h - 8}" text-anchor="middle" font-size="12">call</text>`,
  ];
  for (let k = 0; k <= 4; k++) {
    const v = (maxY * k) / 4;
    parts.push(
      `<text x="${left - 6}" y="${y(v) + 4}" text-anchor="end" font-size="11">$${v.toFixed(v < 1 ? 3 : 2)}</text>`,
    );
    parts.push(
      `<text x="${x((maxX * k) / 4)}" y="${h - bottom + 16}" text-anchor="middle" font-size="11">${Math.round((maxX * k) / 4)}</text>`,
    );
  }
  // Each line has its own dash pattern and its name at its end, so nothing is told by colour alone.
  const ends: { name: string; index: number; y: number }[] = [];
  [...series.points.entries()].forEach(([name, list], index) => {
    const color = COLORS[index % COLORS.length]!;
    const dash = DASHES[index % DASHES.length]!;
    const d = list.map((v, k) => `${k === 0 ? "M" : "L"}${x(series.at[k]!).toFixed(1)},${y(v).toFixed(1)}`).join("");
    parts.push(
      `<path d="${d}" fill="none" stroke="${color}" stroke-width="${index === 0 ? 3 : 1.6}"${dash === "" ? "" : ` stroke-dasharray="${dash}"`} data-policy="${escapeXml(name)}"/>`,
    );
    ends.push({ name, index, y: y(list[list.length - 1] ?? 0) });
  });
  // Labels at the lines' ends, spread apart where the ends crowd, each tied to its line by a stub in its dash.
  ends.sort((a, b) => a.y - b.y);
  let floor = top;
  for (const end of ends) {
    const labelY = Math.max(end.y, floor);
    floor = labelY + 14;
    const color = COLORS[end.index % COLORS.length]!;
    const dash = DASHES[end.index % DASHES.length]!;
    parts.push(
      `<path d="M${w - right + 2},${end.y.toFixed(1)}L${w - right + 24},${labelY.toFixed(1)}" stroke="${color}" stroke-width="1.6" fill="none"${dash === "" ? "" : ` stroke-dasharray="${dash}"`}/>`,
      `<text x="${w - right + 28}" y="${(labelY + 4).toFixed(1)}" font-size="12" fill="${color}">${escapeXml(end.name)}</text>`,
    );
  }
  parts.push("</svg>");
  return parts.join("");
}
