/** Flushing at process exit: the clients still open when the process ends. */

/** What exiting does to an open client. */
export interface ExitAware {
  /** Sends what is queued, then spools the rest. */
  close(): Promise<void>;
  /** Spools everything unsent, synchronously. */
  _spoolAtExit(): void;
}

const live = new Set<ExitAware>();
let hooksInstalled = false;

/**
 * `beforeExit` (the event loop has nothing left to do) closes every open client, which sends what is
 * queued; `exit` (also after `process.exit()`) writes whatever is still unsent to the spool,
 * synchronously, since nothing asynchronous runs any more.
 */
function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on("beforeExit", () => {
    for (const c of [...live]) void c.close();
  });
  process.on("exit", () => {
    for (const c of [...live]) c._spoolAtExit();
  });
}

/** Closes or spools `client` when the process ends, until `forgetAtExit`. */
export function closeAtExit(client: ExitAware): void {
  installExitHooks();
  live.add(client);
}

/** `client` is closed: exiting has nothing more to do for it. */
export function forgetAtExit(client: ExitAware): void {
  live.delete(client);
}
