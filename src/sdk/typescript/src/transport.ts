/** Requests to the service with the global `fetch` (Node 18+): one function per request shape. */

import { randomBytes } from "node:crypto";

export const USER_AGENT = "trailproof-typescript/0.1.0";

/** A fresh key for one batch: 32 hex characters of randomness (src/site/ingestion.md#idempotency). */
export function newIdempotencyKey(): string {
  return randomBytes(16).toString("hex");
}

export interface Response {
  status: number;
  headers: Headers;
  body: Buffer;
}

/** The service's one-sentence `error`, or the start of the body when there is none. */
export function errorMessage(r: Response): string {
  try {
    const v = JSON.parse(r.body.toString("utf8"));
    if (v && typeof v.error === "string") return v.error;
  } catch {
    // not JSON: the body's start below
  }
  const text = r.body.subarray(0, 300).toString("utf8").trim();
  return `HTTP ${r.status}${text ? ": " + text : ""}`;
}

/** `Retry-After` in milliseconds (delta-seconds or an HTTP date), or null. */
export function retryAfterMs(r: Response, now: number = Date.now()): number | null {
  const value = r.headers.get("retry-after");
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.max(0, Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** Refuses a URL that is not `http(s)://host[:port][/prefix]`; answers it without a trailing slash. */
export function checkUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`the trailproof URL must be http:// or https:// with a host, not ${JSON.stringify(url)}`);
  }
  if ((parsed.protocol !== "http:" && parsed.protocol !== "https:") || !parsed.hostname) {
    throw new TypeError(`the trailproof URL must be http:// or https:// with a host, not ${JSON.stringify(url)}`);
  }
  return url.replace(/\/+$/, "");
}

/** The failure of a request that got no answer: a network error or a time-out. */
export class NoAnswer extends Error {}

/**
 * One request; throws `NoAnswer` when no answer arrives within `timeoutMs` (network error, refused
 * connection, time-out), never for an HTTP status.
 */
export async function request(
  baseUrl: string,
  apiKey: string | null,
  method: string,
  path: string,
  body: string | Buffer | null,
  headers: Record<string, string> | null,
  timeoutMs: number,
): Promise<Response> {
  const h: Record<string, string> = { "User-Agent": USER_AGENT };
  if (apiKey) h["Authorization"] = "Bearer " + apiKey;
  if (body !== null) h["Content-Type"] = "application/json";
  if (headers) Object.assign(h, headers);
  try {
    const r = await fetch(baseUrl + path, {
      method,
      headers: h,
      body: body === null ? undefined : body,
      signal: AbortSignal.timeout(Math.max(1, Math.round(timeoutMs))),
    });
    const data = Buffer.from(await r.arrayBuffer());
    return { status: r.status, headers: r.headers, body: data };
  } catch (e) {
    throw new NoAnswer(describe(e));
  }
}

function describe(e: unknown): string {
  if (e instanceof Error) {
    if (e.name === "TimeoutError" || e.name === "AbortError") return "no answer within the request time-out";
    const cause = (e as { cause?: unknown }).cause;
    if (cause instanceof Error) return `${e.message} (${(cause as { code?: string }).code ?? cause.message})`;
    return e.message;
  }
  return String(e);
}
