declare module "*?raw" {
  const text: string;
  export default text;
}

// Bindings vitest.config.ts adds for tests only.
declare namespace Cloudflare {
  interface Env {
    TEST_TIGHT_LIMITER: RateLimit;
  }
}
