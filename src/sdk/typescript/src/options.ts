/**
 * The client's options and the environment variables that stand in for them
 * (src/site/typescript-sdk.md#client).
 */

import * as path from "node:path";

import type { TrailproofError } from "./errors.js";
import { defaultSpoolDir } from "./spool.js";
import { checkUrl } from "./transport.js";

const DEFAULT_URL = "http://127.0.0.1:7600";

export interface ClientOptions {
  /** `TRAILPROOF_URL`, default `http://127.0.0.1:7600`. */
  url?: string;
  /** `TRAILPROOF_API_KEY`; sent as `Authorization: Bearer <key>`. */
  apiKey?: string;
  /** `TRAILPROOF_AGENT_ID`, default the program's file name. */
  agentId?: string;
  sessionId?: string;
  labels?: Record<string, string>;
  metadata?: Record<string, unknown>;
  /** Events per request, 1 to 10,000 (default 100). */
  batchSize?: number;
  /** The longest an event waits in the queue before its batch is sent (default 1,000 ms). */
  flushIntervalMs?: number;
  /** Events the queue holds before `log` throws `QueueFull` (default 10,000). */
  maxQueue?: number;
  requestTimeoutMs?: number;
  /** How long `close()` keeps sending before it spools the rest (default 10,000 ms). */
  closeTimeoutMs?: number;
  maxBackoffMs?: number;
  /** `TRAILPROOF_SPOOL_DIR`, default `~/.trailproof/spool`. */
  spoolDir?: string;
  /** `TRAILPROOF_LOG_KEY`: the log's verifier key, for `verify`. */
  logKey?: string;
  onError?: (error: TrailproofError) => void;
  beforeSend?: (event: Record<string, unknown>) => Record<string, unknown>;
  /** `TRAILPROOF_ENABLED` (`false`, `0`, `no`, `off` disable); default enabled. */
  enabled?: boolean;
}

function envFlag(name: string, dflt: boolean): boolean {
  const v = process.env[name];
  if (v === undefined || !v.trim()) return dflt;
  return !["0", "false", "no", "off"].includes(v.trim().toLowerCase());
}

function programName(): string {
  const main = process.argv[1];
  return (main && path.basename(main)) || "node";
}


/** Every option with its default or environment variable applied. */
export interface Settings {
  enabled: boolean;
  url: string;
  apiKey: string | null;
  agentId: string;
  sessionId: string | null;
  labels: Record<string, string>;
  metadata: Record<string, unknown>;
  batchSize: number;
  flushIntervalMs: number;
  maxQueue: number;
  requestTimeoutMs: number;
  closeTimeoutMs: number;
  maxBackoffMs: number;
  spoolDir: string;
  logKey: string | null;
  onError: ((error: TrailproofError) => void) | null;
  beforeSend: ((event: Record<string, unknown>) => Record<string, unknown>) | null;
}

/** Applies defaults and environment variables; throws `RangeError` for a batch or queue size out of range. */
export function resolveOptions(options: ClientOptions): Settings {
  const batchSize = options.batchSize ?? 100;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10000) {
    throw new RangeError("batchSize must be an integer 1..10000");
  }
  const maxQueue = options.maxQueue ?? 10000;
  if (!Number.isInteger(maxQueue) || maxQueue < 1) throw new RangeError("maxQueue must be at least 1");
  return {
    enabled: options.enabled ?? envFlag("TRAILPROOF_ENABLED", true),
    url: checkUrl(options.url || process.env.TRAILPROOF_URL || DEFAULT_URL),
    apiKey: options.apiKey ?? (process.env.TRAILPROOF_API_KEY || null),
    agentId: options.agentId || process.env.TRAILPROOF_AGENT_ID || programName(),
    sessionId: options.sessionId ?? null,
    labels: { ...(options.labels ?? {}) },
    metadata: { ...(options.metadata ?? {}) },
    batchSize,
    flushIntervalMs: options.flushIntervalMs ?? 1000,
    maxQueue,
    requestTimeoutMs: options.requestTimeoutMs ?? 10000,
    closeTimeoutMs: options.closeTimeoutMs ?? 10000,
    maxBackoffMs: options.maxBackoffMs ?? 30000,
    spoolDir: options.spoolDir || defaultSpoolDir(),
    logKey: options.logKey || process.env.TRAILPROOF_LOG_KEY || null,
    onError: options.onError ?? null,
    beforeSend: options.beforeSend ?? null,
  };
}
