/**
 * The spool: batches that could not be sent, kept on disk until a later client (of either SDK) or
 * hook sends them. The format is the Python SDK's, so each SDK sends the other's spool.
 *
 * One file per batch, named `<20-digit nanoseconds>-<pid>-<idempotency key>.batch`, holding the
 * exact request body (a JSON array of events), so that resending it with the same key is answered
 * from the service's record when an earlier attempt did arrive, and stores nothing twice. Files are
 * written whole (temporary file, fsync, rename), so a crash leaves either the whole batch or nothing.
 * Each service URL has its own subdirectory: the URL with every run of characters other than
 * letters, digits, `.` and `-` made one `_`, cut at 120 characters, holding `url.txt`.
 *
 * Writing is synchronous on purpose: it also runs in the process's `exit` handler, where nothing
 * asynchronous completes.
 */

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const SUFFIX = ".batch";
/** What a batch file set aside gets appended to its name: no SDK reads it again. */
export const SET_ASIDE_SUFFIX = ".unreadable";
const NAME = /^(\d{20})-(\d+)-([A-Za-z0-9._~-]{1,200})\.batch$/;

/** `TRAILPROOF_SPOOL_DIR`, else `~/.trailproof/spool`. */
export function defaultSpoolDir(): string {
  return process.env.TRAILPROOF_SPOOL_DIR || path.join(os.homedir(), ".trailproof", "spool");
}

/** The subdirectory of `root` for the service at `url`. */
export function spoolDirFor(root: string, url: string): string {
  return path.join(root, url.replace(/[^A-Za-z0-9.-]+/g, "_").slice(0, 120));
}

let lastNs = 0n;

/** Wall-clock nanoseconds, strictly increasing within this process (the file names' order). */
function nowNs(): bigint {
  const ns = BigInt(Date.now()) * 1_000_000n;
  lastNs = ns > lastNs ? ns : lastNs + 1n;
  return lastNs;
}

/** A spooled batch read back: its key and exact body, and the events it holds. */
export interface SpooledBatch {
  path: string;
  key: string;
  body: Buffer;
  events: Record<string, unknown>[];
}

/** Why a spool file cannot be read by this version, or null when it can. */
function unreadable(name: string, body: Buffer): string | null {
  if (!NAME.test(name)) return "its name is not <nanoseconds>-<pid>-<idempotency key>.batch";
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(body);
  } catch {
    return "it is not UTF-8";
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return `it is not JSON (${(e as Error).message})`;
  }
  if (!Array.isArray(value) || value.length === 0) return "it is not a JSON array of events";
  for (const e of value) {
    if (e === null || typeof e !== "object" || Array.isArray(e)) return "it is not a JSON array of events";
  }
  return null;
}

/** The spooled batches meant for one service URL. */
export class Spool {
  readonly dir: string;

  constructor(
    readonly root: string,
    readonly url: string,
  ) {
    this.dir = spoolDirFor(root, url);
  }

  private ensure(): void {
    if (!fs.existsSync(this.dir)) {
      fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      fs.writeFileSync(path.join(this.dir, "url.txt"), this.url + "\n", "utf8");
    }
  }

  /** Stores one batch durably and returns its path (throws when the disk refuses). */
  write(key: string, body: string | Buffer): string {
    this.ensure();
    const name = `${nowNs().toString().padStart(20, "0")}-${process.pid}-${key}${SUFFIX}`;
    const tmp = path.join(this.dir, ".tmp-" + name);
    const fd = fs.openSync(tmp, "wx", 0o600);
    try {
      fs.writeSync(fd, typeof body === "string" ? Buffer.from(body, "utf8") : body);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    const target = path.join(this.dir, name);
    fs.renameSync(tmp, target);
    fsyncDir(this.dir);
    return target;
  }

  /** Paths of the spooled batches, oldest first. */
  pending(): string[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return [];
    }
    return names
      .filter((n) => n.endsWith(SUFFIX) && !n.startsWith("."))
      .sort()
      .map((n) => path.join(this.dir, n));
  }

  /**
   * Reads one spooled batch. Null when it is gone (another sender finished it). A file this version
   * cannot read (a newer format, or damaged) is renamed with `.unreadable` appended, so that no
   * sender tries it again and the others go on, and `onSetAside` is told once.
   */
  read(file: string, onSetAside: (file: string, why: string) => void): SpooledBatch | null {
    let body: Buffer;
    try {
      body = fs.readFileSync(file);
    } catch {
      return null;
    }
    const name = path.basename(file);
    const why = unreadable(name, body);
    if (why !== null) {
      try {
        fs.renameSync(file, file + SET_ASIDE_SUFFIX);
      } catch {
        return null; // gone meanwhile: another sender dealt with it
      }
      onSetAside(file + SET_ASIDE_SUFFIX, why);
      return null;
    }
    const key = name.slice(0, -SUFFIX.length).split("-").slice(2).join("-");
    const events = JSON.parse(body.toString("utf8")) as Record<string, unknown>[];
    return { path: file, key, body, events };
  }

  /** Removes a batch once it is acknowledged. */
  done(file: string): void {
    try {
      fs.unlinkSync(file);
    } catch {
      // already removed by another sender of the same batch
    }
  }
}

function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, "r");
    fs.fsyncSync(fd);
  } catch {
    // some file systems cannot sync a directory; the rename is still atomic
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
