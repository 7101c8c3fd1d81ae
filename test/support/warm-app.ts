/**
 * A setup file of the worker projects (vitest.config.ts): loads the app
 * before a test file's tests run. The worker's startup loads no zod (the
 * app is built on the first request that needs it), and in the test pool each
 * module of the app, zod's included, is fetched through vite's module runner on
 * its first import, which under a loaded machine took a file's first test
 * past its 5 s timeout. Loaded here, that cost falls in the file's import
 * phase, as it did while zod was part of the worker's startup; no test's
 * answer depends on it (the bundle's startup is test/node/startup.test.ts's).
 *
 * @module
 */
import "../../src/routes/app";
