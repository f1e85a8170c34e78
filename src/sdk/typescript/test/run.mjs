// Runs every *.test.mjs file with Node's test runner against one packaged server started here
// (its URL in TRAILPROOF_TEST_SERVER), so the files share it; tests that kill or restart a server
// start their own. Exits with the runner's status.

import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

import { SDK_DIR, Server } from "./support.mjs";

const files = fs
  .readdirSync(path.join(SDK_DIR, "test"))
  .filter((f) => f.endsWith(".test.mjs"))
  .filter((f) => process.argv.length <= 2 || process.argv.slice(2).some((a) => f.includes(a)))
  .sort()
  .map((f) => path.join("test", f));

const server = await new Server().start();
let code = 1;
try {
  const child = spawn(process.execPath, ["--test", "--test-concurrency=1", ...files], {
    cwd: SDK_DIR,
    stdio: "inherit",
    env: { ...process.env, TRAILPROOF_TEST_SERVER: JSON.stringify({ url: server.url, port: server.port }) },
  });
  code = await new Promise((resolve) => child.once("exit", (c, s) => resolve(c ?? (s ? 1 : 0))));
} finally {
  await server.remove();
}
process.exit(code);
