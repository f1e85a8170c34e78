package io.trailproof.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventLimits;
import io.trailproof.core.event.EventTime;
import io.trailproof.shipping.EventContent;
import io.trailproof.shipping.Notices;

import java.time.Clock;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * Decides one {@code tools/call} before it reaches the MCP server (src/site/mcp-proxy.md#gate): the
 * call is proposed to the service as the {@code TOOL_CALL} it would be recorded as; {@code allow}
 * forwards it, {@code deny} refuses it, {@code ask} waits up to the ask wait for a person's answer.
 * When the gate cannot be asked the call is refused, unless the fail mode is open. Thread-safe: each
 * waiting call has a thread of its own, so one call waiting never holds up the session's other messages.
 */
final class ToolCallGate {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** What to do with one call. */
    sealed interface Outcome {
    }

    /**
     * Forward the call and record it with {@code mark} (its decision, or that the gate was unavailable).
     */
    record Forward(ToolCallRecorder.GateMark mark) implements Outcome {
    }

    /** Do not forward; answer the client with a tool result whose {@code isError} is true and this text. */
    record Refuse(String reason) implements Outcome {
    }

    private final DecisionClient decisions;
    private final Supplier<String> agentId;
    private final String sessionId;
    private final Clock clock;
    private final McpProxy.Gate settings;
    private final Notices notices;

    /**
     * @param agentId the agent id the call's events are recorded under (the recorder's, so that the
     *     decision and the call are in the same chain)
     */
    ToolCallGate(DecisionClient decisions, Supplier<String> agentId, String sessionId, Clock clock, McpProxy.Gate settings,
            Notices notices) {
        this.decisions = decisions;
        this.agentId = agentId;
        this.sessionId = sessionId;
        this.clock = clock;
        this.settings = settings;
        this.notices = notices;
    }

    /**
     * Decides one call; blocks while the service answers and while an {@code ask} is pending.
     *
     * @param call the {@code tools/call} request, read strictly (a message the strict reader refuses is
     *     never decided: see {@link GatedInput})
     */
    Outcome decide(JsonNode call) {
        JsonNode params = call.path("params");
        String tool = params.path("name").isTextual() ? params.get("name").asText() : null;
        String shown = tool == null ? "the tool call" : tool;
        ObjectNode proposal = proposal(tool, call.get("id"), params.get("arguments"));
        JsonNode input = proposal.get(EventFields.ACTION_INPUT);
        try {
            DecisionClient.Decision d = decisions.decide(proposal);
            String why = why(d);
            switch (d.decision()) {
                case "allow":
                    return new Forward(new ToolCallRecorder.GateMark(d.decisionId(), input));
                case "deny":
                    return new Refuse("trailproof gate denied " + shown + why);
                default:
                    break;
            }
            long deadline = System.nanoTime() + settings.askWait().toNanos();
            String state = "pending";
            while (state.equals("pending")) {
                long left = deadline - System.nanoTime();
                if (left < 1_000_000_000L) {
                    break;
                }
                state = decisions.state(d.decisionId(), Duration.ofNanos(left));
            }
            return switch (state) {
                case "approved" -> new Forward(new ToolCallRecorder.GateMark(d.decisionId(), input));
                case "denied" -> new Refuse("trailproof gate: an approver denied " + shown + why);
                default -> new Refuse("trailproof gate: " + shown + " was not approved within "
                        + settings.askWait().toSeconds() + " s (" + state + ")" + why + "; decision " + d.decisionId());
            };
        } catch (DecisionClient.Unavailable e) {
            if (settings.failOpen()) {
                notices.once("gate-unavailable", e.getMessage() + "; tool calls are forwarded unchecked while it lasts "
                        + "(--gate-fail-mode open) and recorded with metadata.gate \"unavailable\"");
                return new Forward(new ToolCallRecorder.GateMark(null, input));
            }
            notices.once("gate-unavailable", e.getMessage() + "; tool calls are refused while it lasts (--gate-fail-mode closed)");
            return new Refuse("trailproof gate unavailable, so " + shown + " was not called: " + e.getMessage());
        } catch (DecisionClient.Refused e) {
            return new Refuse("trailproof gate refused to decide " + shown + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Refuse("trailproof gate: the proxy is stopping, so " + shown + " was not called");
        }
    }

    /** The event the call would be recorded as, without what only the record has. */
    private ObjectNode proposal(String tool, JsonNode id, JsonNode arguments) {
        ObjectNode e = NODES.objectNode();
        e.put(EventFields.AGENT_ID, agentId.get());
        e.put(EventFields.SESSION_ID, sessionId);
        e.put(EventFields.SOURCE, ToolCallRecorder.SOURCE);
        e.put(EventFields.CAPTURE_METHOD, ToolCallRecorder.SOURCE);
        e.put(EventFields.ACTION_TYPE, ToolCallRecorder.TOOL_CALL);
        if (tool != null) {
            e.put(EventFields.ACTION_NAME, EventContent.clip(tool, EventLimits.STRING_MAX_LENGTH));
        }
        e.put(EventFields.TIMESTAMP, EventTime.formatRecordedAt(clock.instant()));
        e.putObject(EventFields.METADATA).put("jsonrpc_id", id.isTextual() ? id.asText() : id.toString());
        if (arguments != null && !arguments.isNull()) {
            e.set(EventFields.ACTION_INPUT, EventContent.asObject(arguments.deepCopy(), "arguments"));
        }
        return EventContent.fit(e);
    }

    private static String why(DecisionClient.Decision d) {
        if (d.rule() == null && d.reason() == null) {
            return "";
        }
        if (d.rule() == null) {
            return " (" + d.reason() + ")";
        }
        return " (rule " + d.rule() + (d.reason() == null ? "" : ": " + d.reason()) + ")";
    }
}
