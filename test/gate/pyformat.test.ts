import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { pyFixed, pyInt, pyNumber, pyRepr } from "../../src/gate";
import { runs } from "../support/runs";

describe("pyFixed", () => {
  it.each([
    [0.125, 2, "0.12"],
    [0.375, 2, "0.38"],
    [2.5, 0, "2"],
    [3.5, 0, "4"],
    [9999.5, 0, "10000"],
    [10000.5, 0, "10000"],
    [0.5, 0, "0"],
    [-2.5, 0, "-2"],
    [-0.018250000000000002, 4, "-0.0183"],
    [0.00675, 4, "0.0067"],
    [0.38925000000000004, 4, "0.3893"],
    [1.00005, 4, "1.0001"], // the double is just above the tie
    [0.03125, 4, "0.0312"],
    [0.09375, 4, "0.0938"],
  ])("formats %d to %d places as Python does: %s", (x, digits, expected) => {
    expect(pyFixed(x, digits)).toBe(expected);
  });

  it("keeps the sign of negative zero and of negatives that round to zero", () => {
    expect(pyFixed(-0, 4)).toBe("-0.0000");
    expect(pyFixed(-0.00001, 4)).toBe("-0.0000");
    expect(pyFixed(0, 4)).toBe("0.0000");
  });

  it("writes every digit past 1e21, where toFixed switches to exponent form", () => {
    expect(pyFixed(1e21, 2)).toBe("1000000000000000000000.00");
    expect(pyFixed(1.5e22, 0)).toBe("15000000000000000000000");
    expect(pyFixed(2 ** 70 + 2 ** 18, 1)).toBe("1180591620717411565568.0");
  });

  it("writes non-finite values as Python does", () => {
    expect(pyFixed(Number.NaN, 4)).toBe("nan");
    expect(pyFixed(Number.POSITIVE_INFINITY, 4)).toBe("inf");
    expect(pyFixed(Number.NEGATIVE_INFINITY, 2)).toBe("-inf");
  });

  it("agrees with an exact BigInt rounding on random doubles, ties included", () => {
    const ties = fc.integer({ min: -1_000_000, max: 1_000_000 }).map((n) => (2 * n + 1) / 2 ** 5);
    fc.assert(
      fc.property(
        fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), ties),
        fc.integer({ min: 0, max: 6 }),
        (x, digits) => {
          expect(pyFixed(x, digits)).toBe(exactHalfEven(x, digits));
        },
      ),
      { numRuns: runs(2_000), seed: 20261130 },
    );
  });
});

describe("pyInt and pyNumber", () => {
  it("print integers with every digit", () => {
    expect(pyInt(4)).toBe("4");
    expect(pyInt(1e21)).toBe("1000000000000000000000");
    expect(pyNumber(10_000)).toBe("10000");
  });

  it("print non-integers as Python's float repr", () => {
    expect(pyNumber(0.5)).toBe("0.5");
    expect(pyNumber(1e-5)).toBe("1e-05");
    expect(pyNumber(1.5e-7)).toBe("1.5e-07");
    expect(pyNumber(0.0001)).toBe("0.0001");
    expect(pyNumber(1234.5)).toBe("1234.5");
    expect(pyNumber(-2.25)).toBe("-2.25");
  });
});

describe("pyRepr", () => {
  it("quotes as Python's repr does", () => {
    expect(pyRepr("mystery-model-9")).toBe("'mystery-model-9'");
    expect(pyRepr("it's")).toBe(`"it's"`);
    expect(pyRepr(`it's "x"`)).toBe(`'it\\'s "x"'`);
    expect(pyRepr("a\\b")).toBe("'a\\\\b'");
    expect(pyRepr("tab\there\n")).toBe("'tab\\there\\n'");
    expect(pyRepr("\u0007\u007f\u0085")).toBe("'\\x07\\x7f\\x85'");
    expect(pyRepr("\u200b\u2028")).toBe("'\\u200b\\u2028'");
    expect(pyRepr("café 模型")).toBe("'café 模型'");
    expect(pyRepr("\u{e0001}")).toBe("'\\U000e0001'");
  });
});

/** The slow, obviously right way: exact rational arithmetic on the double's bits. */
function exactHalfEven(x: number, digits: number): string {
  const negative = x < 0 || Object.is(x, -0);
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = biased === 0 ? fraction : fraction | (1n << 52n);
  const exponent = biased === 0 ? -1074 : biased - 1075;
  const num = mantissa * 10n ** BigInt(digits) * (exponent > 0 ? 1n << BigInt(exponent) : 1n);
  const den = exponent < 0 ? 1n << BigInt(-exponent) : 1n;
  let q = num / den;
  const r2 = 2n * (num % den);
  if (r2 > den || (r2 === den && q % 2n === 1n)) q += 1n;
  let text = q.toString();
  if (digits > 0) {
    text = text.padStart(digits + 1, "0");
    text = `${text.slice(0, -digits)}.${text.slice(-digits)}`;
  }
  return negative ? `-${text}` : text;
}
