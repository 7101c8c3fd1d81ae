// Types of ./bundle.mjs for the TypeScript that imports it (test/node/startup.test.ts).
import type { BuildOptions } from "esbuild";

/** The repository's root directory. */
export const ROOT: string;
/** esbuild's options for the worker as `wrangler deploy` bundles it, minus the minifier. */
export function workerBuildOptions(): BuildOptions;
/** Bundles one entry to dist/bench/<name>.mjs and returns the file's path. */
export function bundle(entry: string, name: string): Promise<string>;
