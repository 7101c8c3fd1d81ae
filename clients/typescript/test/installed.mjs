// The client as a user gets it: packed by npm, a fake gate and a loopback
// npm registry on 127.0.0.1, and a throwaway project with the package
// unpacked into node_modules and its bins linked as npm links them. Shared by
// the hook commands' tests that run the installed bins (hook-docs, hook-attacks).
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const CLIENT_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
const CLIENT = JSON.parse(readFileSync(join(CLIENT_DIR, "package.json"), "utf8"));
/** The package's name and its bins, from its package.json. */
export const PACKAGE_NAME = CLIENT.name;
export const PACKAGE_BINS = Object.keys(CLIENT.bin);
/** Where the client's own install keeps what a user installs beside it (its dependency and optional peers). */
const moduleDir = (name) => join(CLIENT_DIR, "node_modules", name);

const run = (command, args, cwd) => {
  const result = spawnSync(command, args, { cwd, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed:\n${result.stdout}${result.stderr}`);
  return result.stdout;
};

/**
 * Runs a command without blocking this process (whose loopback servers must keep answering it):
 * its status, signal, stdout and stderr; killed past `timeout` ms.
 */
export function spawnAsync(command, args, { input, timeout = 60_000, ...options } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    // Decoded as a stream: a multi-byte character split across two chunks stays whole.
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (c) => {
      stdout += c;
    });
    child.stderr.on("data", (c) => {
      stderr += c;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeout);
    child.on("close", (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr });
    });
    child.stdin.on("error", () => {});
    child.stdin.end(input ?? "");
  });
}

let packed;
/** The client packed as npm would publish it (dist must be built), once per process: the tarball's path. */
export function packClient() {
  if (packed) return packed;
  const out = mkdtempSync(join(tmpdir(), "offload-pack-"));
  run("npm", ["pack", "--ignore-scripts", "--silent", "--pack-destination", out], CLIENT_DIR);
  packed = join(
    out,
    readdirSync(out).find((name) => name.endsWith(".tgz")),
  );
  return packed;
}

/** An installed package folder packed as a registry tarball (`package/…`), for the loopback registry. */
export function packInstalled(name) {
  const out = mkdtempSync(join(tmpdir(), "offload-pack-"));
  const tarball = join(out, `${name.replace("/", "-")}.tgz`);
  run("tar", ["czf", tarball, "--transform", "s,^\\.,package,", "-C", moduleDir(name), "."], out);
  return { tarball, manifest: JSON.parse(readFileSync(join(moduleDir(name), "package.json"), "utf8")) };
}

/**
 * A throwaway project with the packed client unpacked in node_modules, its bins linked in
 * node_modules/.bin (relative symlinks, as npm makes them), and hono and the recall's peers beside it.
 */
export function installedProject() {
  const project = mkdtempSync(join(tmpdir(), "offload-project-"));
  const installed = join(project, "node_modules", PACKAGE_NAME);
  mkdirSync(installed, { recursive: true });
  run("tar", ["xzf", packClient(), "-C", installed, "--strip-components=1"], project);
  for (const name of ["hono", "@modelcontextprotocol/sdk", "zod"]) {
    mkdirSync(dirname(join(project, "node_modules", name)), { recursive: true });
    symlinkSync(moduleDir(name), join(project, "node_modules", name));
  }
  const binDir = join(project, "node_modules", ".bin");
  mkdirSync(binDir, { recursive: true });
  const bins = {};
  for (const [bin, target] of Object.entries(CLIENT.bin)) {
    const file = join(installed, target);
    chmodSync(file, 0o755);
    symlinkSync(relative(binDir, file), join(binDir, bin));
    bins[bin] = join(binDir, bin);
  }
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "hook-user", private: true }));
  return { project, bins, dist: join(installed, "dist") };
}

const listen = (server) =>
  new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server.address().port)));

/**
 * A gate on loopback that fires on every decision and takes every report, noting each request
 * (its path, body and Authorization header); under `/refuse` it refuses the key (401).
 */
export async function fakeGate() {
  const requests = [];
  let n = 0;
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      requests.push({ path: req.url, auth: req.headers.authorization, body });
      // Under /refuse, the gate refuses the key, as a gate given a wrong one does.
      if (req.url.startsWith("/refuse")) {
        res
          .writeHead(401, { "content-type": "application/json" })
          .end(JSON.stringify({ error: { code: "unauthorized", message: "unknown API key" } }));
        return;
      }
      const answer =
        req.url === "/v1/gate"
          ? {
              fire: true,
              reason_code: "net_positive",
              net_saving_usd: 0.1,
              decision_id: `dec_0_${(++n).toString(16).padStart(32, "0")}`,
            }
          : { results: [], accepted: 0, unknown_decision: 0, conflict: 0, invalid: 0 };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    });
  });
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}`, requests, close: () => server.close() };
}

/**
 * An npm registry on loopback that serves only the packages given ({ name: tarball }) and notes every
 * other name asked for (`foreign`), answering it 404: a command that asks for any other package
 * fails the test that checks `foreign`. Names in `known` (the package's declared optional peers,
 * whose metadata npm reads though it installs none of them) are answered 404 and not noted.
 */
export async function loopbackRegistry(packages, known = []) {
  const foreign = [];
  const asked = [];
  const served = new Map();
  let base = "";
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname).replace(/^\/+/, "");
    const name = path.startsWith("@") ? path.split("/").slice(0, 2).join("/") : path.split("/")[0];
    asked.push(name);
    const entry = served.get(name);
    if (entry === undefined) {
      if (!known.includes(name)) foreign.push(name);
      res.writeHead(404, { "content-type": "application/json" }).end('{"error":"not found"}');
      return;
    }
    if (path.includes("/-/")) {
      res.writeHead(200, { "content-type": "application/octet-stream" }).end(entry.bytes);
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(entry.packument(base)));
  });
  const port = await listen(server);
  base = `http://127.0.0.1:${port}/`;
  for (const [name, { tarball, manifest }] of Object.entries(packages)) {
    const bytes = readFileSync(tarball);
    const integrity = `sha512-${createHash("sha512").update(bytes).digest("base64")}`;
    const file = `${name.split("/").at(-1)}-${manifest.version}.tgz`;
    served.set(name, {
      bytes,
      packument: (url) => ({
        name,
        "dist-tags": { latest: manifest.version },
        versions: {
          [manifest.version]: { ...manifest, name, dist: { tarball: `${url}${name}/-/${file}`, integrity } },
        },
      }),
    });
  }
  return { url: base, foreign, asked, close: () => server.close() };
}

/** The client's manifest as packed (for the registry). */
export const clientManifest = () => CLIENT;
