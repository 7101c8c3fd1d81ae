/**
 * The schema side of src/storage/rules/names.ts: stored records keyed by names from
 * requests, validated whole and read back with no prototype.
 *
 * @module
 */
import { z } from "@hono/zod-openapi";
import { dict } from "../rules";

/**
 * A record schema for stored values keyed by names: every own key is kept
 * and validated, `"__proto__"` included (zod's record drops that one
 * unchecked), and the result has no prototype.
 *
 * @example
 * nameRecord(z.number()).parse(JSON.parse('{"__proto__": 1}'))["__proto__"] // 1
 */
export function nameRecord<T extends z.ZodType>(value: T, key: z.ZodType<string> = z.string()) {
  const record = z.unknown().transform((raw, ctx): Record<string, z.output<T>> => {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      ctx.addIssue({ code: "custom", message: "must be an object" });
      return z.NEVER;
    }
    const out = dict<z.output<T>>();
    for (const [name, entry] of Object.entries(raw)) {
      const named = key.safeParse(name);
      const parsed = value.safeParse(entry);
      if (!named.success)
        ctx.addIssue({
          code: "custom",
          path: [name],
          message: named.error.issues[0]?.message ?? "is not a valid name",
        });
      if (!parsed.success)
        for (const issue of parsed.error.issues)
          ctx.addIssue({ code: "custom", path: [name, ...issue.path], message: issue.message });
      if (named.success && parsed.success) out[name] = parsed.data;
    }
    return out;
  });
  NAME_RECORDS.set(record, { key, value });
  return record;
}

/**
 * Each name record's key and value schemas, for the validator generator
 * (scripts/validators/generate.ts), which compiles a record as an object whose
 * every own key and entry are checked: a transform's input side says nothing.
 */
export const NAME_RECORDS = new WeakMap<z.ZodType, { key: z.ZodType<string>; value: z.ZodType }>();
