/**
 * Python-compatible string formatting for the reason strings.
 *
 * The reference builds its reason with f-strings, so a byte-exact port needs
 * Python's `:.Nf` (round-half-even on the exact binary value), `str(int)` and
 * `repr(str)`. JavaScript's `toFixed` rounds exact ties away from zero and
 * switches to exponent form at 1e21, so it is only used where it provably
 * agrees.
 */

/**
 * Formats a double as Python's `f"{x:.{digits}f}"` does.
 *
 * @example
 * pyFixed(0.125, 2)   // "0.12"  (toFixed gives "0.13")
 * pyFixed(2.5, 0)     // "2"
 * pyFixed(-0.0183, 4) // "-0.0183"
 */
export function pyFixed(x: number, digits: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? "nan" : x > 0 ? "inf" : "-inf";
  const negative = x < 0 || Object.is(x, -0);
  const magnitude = Math.abs(x);
  // toFixed is exact except on ties (it picks the larger magnitude) and past
  // 1e21. A tie at `digits` places means magnitude·2^(digits+1) is an odd
  // integer (its dyadic denominator is exactly 2^(digits+1)); scaling by a
  // power of two is exact, so this test is too.
  const scaled = magnitude * 2 ** (digits + 1);
  const isTie = Number.isInteger(scaled) && scaled % 2 === 1;
  const body = magnitude < 1e21 && !isTie ? magnitude.toFixed(digits) : exactFixed(magnitude, digits);
  return negative ? `-${body}` : body;
}

/** Exact decimal rounding (half-even) of a non-negative finite double, via BigInt. */
function exactFixed(magnitude: number, digits: number): string {
  const [mantissa, exponent] = decompose(magnitude);
  const scale = 10n ** BigInt(digits);
  let rounded: bigint;
  if (exponent >= 0) {
    rounded = (mantissa << BigInt(exponent)) * scale;
  } else {
    const numerator = mantissa * scale;
    const denominator = 1n << BigInt(-exponent);
    const quotient = numerator / denominator;
    const twiceRemainder = 2n * (numerator % denominator);
    const roundUp = twiceRemainder > denominator || (twiceRemainder === denominator && quotient % 2n === 1n);
    rounded = roundUp ? quotient + 1n : quotient;
  }
  if (digits === 0) return rounded.toString();
  const text = rounded.toString().padStart(digits + 1, "0");
  return `${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** Splits a non-negative finite double into an integer mantissa and a power-of-two exponent. */
function decompose(magnitude: number): [bigint, number] {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, magnitude);
  const high = view.getUint32(0);
  const low = view.getUint32(4);
  const biased = (high >>> 20) & 0x7ff;
  const fraction = (BigInt(high & 0xfffff) << 32n) | BigInt(low);
  return biased === 0 ? [fraction, -1074] : [fraction | (1n << 52n), biased - 1075];
}

/**
 * Formats an integer-valued double as Python's `str(int(x))` does: every
 * digit, never an exponent.
 *
 * @example
 * pyInt(4)     // "4"
 * pyInt(1e21)  // "1000000000000000000000"
 */
export function pyInt(x: number): string {
  return Number.isSafeInteger(x) ? String(x) : BigInt(x).toString();
}

/**
 * Formats a number as Python would print the value the reference holds:
 * an int for integer values (the reference's token counts are ints), a
 * float repr otherwise.
 *
 * @example
 * pyNumber(10000) // "10000"
 * pyNumber(0.5)   // "0.5"
 * pyNumber(1e-5)  // "1e-05"
 */
export function pyNumber(x: number): string {
  if (Number.isInteger(x)) return pyInt(x);
  if (!Number.isFinite(x)) return Number.isNaN(x) ? "nan" : x > 0 ? "inf" : "-inf";
  // Shortest round-trip digits are the same in both languages; only the
  // switch to exponent form differs (Python: exponent < -4 or >= 16).
  const [digits, pointAt] = shortestDigits(Math.abs(x));
  const sign = x < 0 ? "-" : "";
  const exponent = pointAt - 1;
  if (exponent < -4 || exponent >= 16) {
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const expSign = exponent < 0 ? "-" : "+";
    return `${sign}${mantissa}e${expSign}${String(Math.abs(exponent)).padStart(2, "0")}`;
  }
  if (pointAt <= 0) return `${sign}0.${"0".repeat(-pointAt)}${digits}`;
  return `${sign}${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`;
}

/** Shortest round-trip decimal digits and the position of the decimal point. */
function shortestDigits(magnitude: number): [string, number] {
  const [mantissa, exp] = magnitude.toExponential().split("e") as [string, string];
  const digits = mantissa.replace(".", "");
  return [digits, Number(exp) + 1];
}

// Python's str.isprintable() is false for these general categories; repr()
// escapes such characters.
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/**
 * Quotes a string as Python's `repr(str)` does.
 *
 * @example
 * pyRepr("mystery-model-9") // "'mystery-model-9'"
 * pyRepr("it's")            // "\"it's\""
 */
export function pyRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    if (char === quote || char === "\\") out += `\\${char}`;
    else if (char === "\n") out += "\\n";
    else if (char === "\r") out += "\\r";
    else if (char === "\t") out += "\\t";
    else if (char !== " " && NON_PRINTABLE.test(char)) out += escapeCodePoint(code);
    else out += char;
  }
  return out + quote;
}

function escapeCodePoint(code: number): string {
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, "0")}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, "0")}`;
  return `\\U${code.toString(16).padStart(8, "0")}`;
}
