// `node --import ./scripts/validators/workerd-stub.mjs`: the schemas the
// validators are compiled from sit in modules that also reach the ledger's
// Durable Object class, whose base class only workerd provides. Compiling
// reads schemas and never runs that class, so in Node `cloudflare:workers`
// answers an empty base class.
import { register } from "node:module";

const STUB =
  "data:text/javascript,export class DurableObject {} export class WorkerEntrypoint {} export const env = {};";
const hooks = `export async function resolve(specifier, context, next) {
  return specifier.startsWith("cloudflare:") ? { url: ${JSON.stringify(STUB)}, shortCircuit: true } : next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
