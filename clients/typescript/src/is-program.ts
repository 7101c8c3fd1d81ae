/**
 * Whether a module is the program node runs (a package bin), not a module imported by another.
 * npm's bin is a symlink (node_modules/.bin), so the program's real path is compared.
 */
import { realpathSync } from "node:fs";
import { pathToFileURL } from "node:url";

/**
 * @example
 * if (isProgram(import.meta.url)) main();
 */
export function isProgram(moduleUrl: string): boolean {
  try {
    return process.argv[1] !== undefined && moduleUrl === pathToFileURL(realpathSync(process.argv[1])).href;
  } catch {
    return false;
  }
}
