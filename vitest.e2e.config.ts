import { defineConfig } from "vitest/config";

// `npm run test:e2e`: a real browser (Debian's chromium through
// playwright-core) against `wrangler dev`. Runs in Node, apart from `npm test`.
export default defineConfig({
  test: {
    include: ["e2e/**/*.e2e.ts"],
    environment: "node",
    globalSetup: ["e2e/server.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
