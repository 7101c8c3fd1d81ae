// The floor of bench/proxy.mjs: the least a Worker can do to pass a request on
// (one fetch of the same request to the upstream, its answer handed back), in
// the same runtime as the proxy. What it adds over going direct is workerd's,
// not the proxy's: every byte crosses the runtime twice.
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    return fetch(`${env.ANTHROPIC_UPSTREAM}${url.pathname.replace(/^\/floor/, "")}`, request);
  },
};
