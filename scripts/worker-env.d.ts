// The Node scripts share the worker's storage code, whose HTTP helpers name the
// worker's bindings type (src/http/app.ts); the scripts never build an app, so
// here it is an empty shape.
// biome-ignore lint/suspicious/noEmptyInterface: a global the worker's types declare in full
interface Env {}
