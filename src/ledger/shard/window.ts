/**
 * How a window of decision times is read (docs/ledger/rollups.md): the
 * whole hours inside it from the rollups, the hours it only partly covers
 * from raw rows, exactly, while the shard still keeps them. Pure.
 */
import { HOUR_MS } from "./rollup-sql";

/** What to read for a window: whole hours [from, to) from rollups (none when from = to), and raw ranges. */
export interface WindowPlan {
  hours: { from: number; to: number };
  raw: { from: number; to: number }[];
}

const floorHour = (t: number) => t - (((t % HOUR_MS) + HOUR_MS) % HOUR_MS);

/**
 * The plan for [from, to) when raw rows are kept from `rawFrom` on (an
 * hour's start; everything older was purged). A partial hour at either end
 * is read from raw rows when they are kept; when they are not, the window
 * takes that hour whole: its start moves back to the hour's start, its end
 * forward to the hour's end. Only through such partial hours can the purge
 * change a window's figures; a window on whole hours never changes.
 *
 * @example
 * planWindow(5_400_000, 9_000_000, 0) // { hours: { from: 7_200_000, to: 7_200_000 }, raw: [{ from: 5_400_000, to: 7_200_000 }, { from: 7_200_000, to: 9_000_000 }] }
 * planWindow(5_400_000, 9_000_000, 86_400_000) // { hours: { from: 3_600_000, to: 10_800_000 }, raw: [] }
 */
export function planWindow(from: number, to: number, rawFrom: number): WindowPlan {
  if (!(from < to)) return { hours: { from, to: from }, raw: [] };
  const first = floorHour(from);
  const last = floorHour(to);
  const raw: WindowPlan["raw"] = [];
  if (first === last && from !== first) {
    // Inside one hour: raw rows, or the hour whole.
    if (first >= rawFrom) return { hours: { from: first, to: first }, raw: [{ from, to }] };
    return { hours: { from: first, to: first + HOUR_MS }, raw: [] };
  }
  let start = from;
  if (from !== first) {
    if (first >= rawFrom) {
      raw.push({ from, to: first + HOUR_MS });
      start = first + HOUR_MS;
    } else start = first;
  }
  let end = to;
  if (to !== last) {
    if (last >= rawFrom) {
      raw.push({ from: last, to });
      end = last;
    } else end = last + HOUR_MS;
  }
  return { hours: { from: start, to: Math.max(start, end) }, raw };
}
