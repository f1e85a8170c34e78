/**
 * trailproof: the TypeScript client of the tamper-evident audit trail for AI agents.
 *
 *     import { Client } from "trailproof";
 *     const client = new Client();   // TRAILPROOF_URL, TRAILPROOF_API_KEY, TRAILPROOF_AGENT_ID
 *     const receipt = client.log({ actionType: "TOOL_CALL", actionName: "search", input: { q: "..." } });
 *     await client.flush();
 *     console.log(await client.verify(receipt));
 *
 * See src/site/typescript-sdk.md in the trailproof documentation.
 */

export { Client, Receipt, CAPTURE_METHOD, type Ack, type ClientOptions, type LogFields } from "./client.js";
export { Action, type ActionFields, type AuditedOptions } from "./capture.js";
export {
  ApprovalTimeout,
  Denied,
  NotSent,
  QueueFull,
  RejectedEvent,
  TrailproofError,
  Unavailable,
} from "./errors.js";
export { Decision, type DecideOptions, type FailMode } from "./gate.js";
export { canonicalize, eventHash, parseStrict, CanonicalizationError } from "./jcs.js";
export { Verification, checkEventProof } from "./verify.js";
export { jsonable } from "./values.js";
