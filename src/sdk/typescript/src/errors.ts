/** The SDK's errors: everything it throws, rejects with, or reports to `onError`. */

/** Base class of everything the SDK throws or reports to `onError`. */
export class TrailproofError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * The service refused an event (a 400 for its batch item, or a 422): `message` is the service's
 * sentence. `event` is the event as it was sent (after `beforeSend`), or null for a spooled batch.
 * Nothing was stored; sending it again unchanged would be refused again.
 */
export class RejectedEvent extends TrailproofError {
  readonly event: Record<string, unknown> | null;
  constructor(message: string, event: Record<string, unknown> | null = null) {
    super(message);
    this.event = event;
  }
}

/**
 * The queue was full (`maxQueue` events waiting): the event was not queued. Its capture number is
 * reported as dropped on the client's next event (`capture_dropped`), so the service records a gap.
 */
export class QueueFull extends TrailproofError {}

/**
 * The event was not acknowledged before `close()` gave up (or the process exited): `spoolPath` holds
 * it, or is null when even the spool could not be written (which `onError` was also told).
 */
export class NotSent extends TrailproofError {
  readonly spoolPath: string | null;
  constructor(message: string, spoolPath: string | null = null) {
    super(message);
    this.spoolPath = spoolPath;
  }
}

/**
 * The gate refused the call (a `deny` decision, or an `ask` a person denied); the function did not
 * run. `decision` carries the rule and the reason.
 */
export class Denied extends TrailproofError {
  readonly decision: unknown;
  constructor(message: string, decision: unknown = null) {
    super(message);
    this.decision = decision;
  }
}

/**
 * An `ask` was not approved within the wait (still pending, or expired); the function did not run.
 * `decision` may still be approved later.
 */
export class ApprovalTimeout extends TrailproofError {
  readonly decision: unknown;
  constructor(message: string, decision: unknown = null) {
    super(message);
    this.decision = decision;
  }
}

/**
 * The gate could not be asked: trailproof is unreachable or answered 408, 429 or 5xx. A gated call
 * with `failMode: "closed"` (the default) throws it without running.
 */
export class Unavailable extends TrailproofError {}
