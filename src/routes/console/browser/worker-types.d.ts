// The worker's modules that ./api.ts reaches for its schemas name Workers' KV
// type in functions the browser never calls. Workers' global declarations
// would redefine DOM types (their HTMLRewriter `Element`), so only this one
// name is brought in, from the package's module form.
type KVNamespace<Key extends string = string> = import("@cloudflare/workers-types/index").KVNamespace<Key>;
