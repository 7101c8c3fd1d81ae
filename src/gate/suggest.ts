/**
 * The known model names closest to one no row prices, for the answer's
 * `suggestions`: a typo (`claude-opus-4.6`), a missing or extra date
 * suffix, a provider prefix. Pure: the names come from the caller.
 */

/** Most names suggested. */
export const MAX_SUGGESTIONS = 3;

/**
 * Up to MAX_SUGGESTIONS known names near `name`, closest first (edit
 * distance, ignoring case, `.` against `-` and `_`, with a name that
 * contains the other or is contained by it counted close); none that
 * differs in more than a third of its characters.
 *
 * @example
 * closestNames("claude-opus-4.6", ["claude-opus-4-6", "claude-opus-4-5", "gpt-5"]) // ["claude-opus-4-6", "claude-opus-4-5"]
 */
export function closestNames(name: string, known: Iterable<string>): string[] {
  const wanted = normalize(name);
  const scored: { name: string; score: number }[] = [];
  for (const candidate of known) {
    const other = normalize(candidate);
    if (other === wanted && candidate === name) continue;
    const contained = wanted.length >= 3 && other.length >= 3 && (other.includes(wanted) || wanted.includes(other));
    const distance = contained ? Math.abs(other.length - wanted.length) / 4 : editDistance(wanted, other);
    if (distance <= Math.max(2, Math.ceil(Math.max(wanted.length, other.length) / 3)))
      scored.push({ name: candidate, score: distance });
  }
  scored.sort((a, b) => a.score - b.score || (a.name < b.name ? -1 : 1));
  return scored.slice(0, MAX_SUGGESTIONS).map((entry) => entry.name);
}

const normalize = (name: string) => name.toLowerCase().replace(/[._]/g, "-");

// Levenshtein distance, two rows; names are at most 128 characters.
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
