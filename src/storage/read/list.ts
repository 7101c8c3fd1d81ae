/** Keys per bulk read: KV's limit for one get() of many keys. */
const BULK_READ = 100;

/**
 * Every key under `prefix` with its value, keyed by the name after the
 * prefix: pages through list() until list_complete, then reads values
 * 100 keys at a time. A key deleted between the two is left out. The admin
 * list and the console both read KV through it.
 *
 * @example
 * const rows = await listValues(env.PRICING, PRICING_PREFIX); // Map { "gpt-5" => '{"input":1.25,...}' }
 */
export async function listValues(kv: KVNamespace, prefix: string): Promise<Map<string, string>> {
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await kv.list(cursor === undefined ? { prefix } : { prefix, cursor });
    names.push(...page.keys.map((key) => key.name));
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor !== undefined);
  const values = new Map<string, string>();
  for (let start = 0; start < names.length; start += BULK_READ) {
    const batch = await kv.get(names.slice(start, start + BULK_READ), "text");
    for (const [name, text] of batch) if (text !== null) values.set(name.slice(prefix.length), text);
  }
  return values;
}
