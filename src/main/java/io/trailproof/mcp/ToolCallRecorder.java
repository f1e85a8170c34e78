package io.trailproof.mcp;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.shipping.EventContent;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventLimits;
import io.trailproof.core.event.EventTime;
import io.trailproof.core.json.JsonRejection;
import io.trailproof.core.json.StrictJson;

import java.io.IOException;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * Turns the messages of one MCP session into events (src/site/mcp-proxy.md#what-is-recorded): each
 * {@code tools/call} request from the client becomes a {@code TOOL_CALL} event, and the server's
 * answer with the same JSON-RPC id a {@code TOOL_RESULT} event with its status and duration.
 *
 * <p>Single-threaded: messages of both directions arrive in one sequence, in the order of their
 * {@link Sequencer} numbers, which keeps cause before effect (the client can only send a request after
 * it has read the answer to {@code initialize}, which the proxy numbered first). Each event carries the
 * number of the message it was made from as {@code metadata.proxy_seq}; events made from one message
 * (the calls of a batch) share it and come in the message's order.
 *
 * <p>Each event is checked with the service's own event rules before it is handed on; content those
 * rules would refuse is summarised right here, so the summary takes the event's place in the order.
 *
 * <p><b>Agent id.</b> The explicit one (flag or environment) if given; otherwise
 * {@code mcp:<serverInfo.name>} from the server's answer to {@code initialize}. The id is fixed when
 * the first event is made, so one run never spreads over two chains: a client that calls a tool
 * before the server answered {@code initialize} (a protocol error) gets the fallback
 * {@code mcp:<file name of the server command>}.
 */
final class ToolCallRecorder {

    static final String SOURCE = "mcp-proxy";
    static final String TOOL_CALL = "TOOL_CALL";
    static final String TOOL_RESULT = "TOOL_RESULT";
    static final String SUCCESS = "success";
    static final String ERROR = "error";

    /** Nesting allowed while reading a message; the content's own depth is checked when it is recorded. */
    static final int READ_DEPTH = 100_000;
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** For messages the strict reader refuses: enough to route them, never to record their content. */
    private static final ObjectMapper LENIENT = new ObjectMapper(StrictJson.unlimitedFactory())
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    /** Which way a message went. */
    enum Direction { CLIENT_TO_SERVER, SERVER_TO_CLIENT }

    /** The metadata member that carries the message's number (src/site/mcp-proxy.md#order). */
    static final String PROXY_SEQ = EventContent.PROXY_SEQ;

    private record Pending(String tool, long startNanos, JsonNode id) {
    }

    /**
     * How the gate let a forwarded {@code tools/call} through: {@code decisionId} is the decision that
     * allowed it, or null when the gate could not be asked (fail mode open); {@code actionInput} is the
     * input exactly as proposed (null for none), which the record repeats so that its arguments hash
     * to the decision's.
     */
    record GateMark(String decisionId, JsonNode actionInput) {
    }

    private final String explicitAgentId;
    private final String fallbackAgentId;
    private final String sessionId;
    private final Consumer<ObjectNode> events;
    private final Map<String, Pending> pending = new HashMap<>();
    private String initializeId;
    private String serverName;
    private String serverVersion;
    private String agentId;
    private long oversized;
    /** This proxy process's capture stream (src/site/completeness.md#capture-sequences). */
    private final String captureId;
    private long captureSeq;

    /**
     * @param explicitAgentId the agent id to use, or null to take it from the server's name
     * @param serverCommand the command the server was started with (its file name is the fallback id)
     * @param events receives each event, in order
     */
    ToolCallRecorder(String explicitAgentId, String serverCommand, String sessionId, Consumer<ObjectNode> events) {
        this(explicitAgentId, serverCommand, sessionId, "mcp-" + UUID.randomUUID().toString().replace("-", ""), events);
    }

    /** @param captureId the capture stream of the events, one per proxy process */
    ToolCallRecorder(String explicitAgentId, String serverCommand, String sessionId, String captureId,
                     Consumer<ObjectNode> events) {
        this.captureId = captureId;
        this.explicitAgentId = explicitAgentId;
        this.fallbackAgentId = agentIdFor(fileName(serverCommand));
        this.sessionId = sessionId;
        this.events = events;
    }

    /**
     * One message of the session.
     *
     * @param line the message's bytes, or null when it was too long to keep
     * @param stamp its number and when the proxy read its end (the event's {@code timestamp})
     */
    void message(Direction direction, byte[] line, Sequencer.Stamp stamp) {
        message(direction, line, stamp, null);
    }

    /**
     * One message, as {@link #message(Direction, byte[], Sequencer.Stamp)}, that the gate let through
     * with {@code mark} (src/site/mcp-proxy.md#gate).
     */
    void message(Direction direction, byte[] line, Sequencer.Stamp stamp, GateMark mark) {
        if (line == null) {
            oversized++;
            return;
        }
        if (direction == Direction.SERVER_TO_CLIENT && pending.isEmpty() && initializeId == null) {
            return; // nothing is waiting for an answer: no need to read it
        }
        if (isBlank(line)) {
            return;
        }
        JsonNode root;
        String unreadable = null;
        try {
            root = StrictJson.parse(line, READ_DEPTH);
        } catch (JsonRejection e) {
            unreadable = e.getMessage();
            try {
                root = LENIENT.readTree(line);
            } catch (IOException notJson) {
                return; // not JSON-RPC at all: passed on, nothing to record
            }
        }
        if (root == null) {
            return;
        }
        Iterator<JsonNode> messages = root.isArray() ? root.elements() : List.of(root).iterator();
        while (messages.hasNext()) {
            JsonNode m = messages.next();
            if (!m.isObject()) {
                continue;
            }
            Received r = new Received(line, unreadable, stamp, root.isObject() ? mark : null);
            if (direction == Direction.CLIENT_TO_SERVER) {
                fromClient(m, r);
            } else {
                fromServer(m, r);
            }
        }
    }

    /** How many messages were passed on without being read because they were too long to keep. */
    long oversizedMessages() {
        return oversized;
    }

    /**
     * The session ended: every call still waiting gets a result saying it was never answered.
     *
     * @param stamp the end's place in the session, after every message
     */
    void finish(Sequencer.Stamp stamp) {
        for (Pending p : pending.values()) {
            ObjectNode e = base(TOOL_RESULT, p.tool(), stamp, p.id());
            e.put(EventFields.ACTION_STATUS, ERROR);
            e.put(EventFields.ERROR_MESSAGE, oversized > 0
                    ? "no answer was recorded: the MCP server ended without answering, or its answer was too large "
                            + "to record and was passed on unread"
                    : "no answer: the MCP server ended without answering");
            e.put(EventFields.DURATION_MS, millis(p.startNanos(), stamp.nanos()));
            emit(e);
        }
        pending.clear();
    }

    private record Received(byte[] line, String unreadable, Sequencer.Stamp stamp, GateMark mark) {
        long nanos() {
            return stamp.nanos();
        }
    }

    private void fromClient(JsonNode m, Received r) {
        String method = m.path("method").isTextual() ? m.get("method").asText() : null;
        JsonNode id = m.get("id");
        boolean request = id != null && !id.isNull() && method != null;
        if (request && "initialize".equals(method)) {
            initializeId = key(id);
        } else if (request && "tools/call".equals(method)) {
            call(m, id, r);
        } else if ("notifications/cancelled".equals(method)) {
            JsonNode requestId = m.path("params").get("requestId");
            Pending p = requestId == null ? null : pending.remove(key(requestId));
            if (p != null) {
                ObjectNode e = base(TOOL_RESULT, p.tool(), r.stamp(), p.id());
                e.put(EventFields.ACTION_STATUS, ERROR);
                JsonNode reason = m.path("params").get("reason");
                e.put(EventFields.ERROR_MESSAGE, EventContent.clip("cancelled by the client"
                        + (reason != null && reason.isTextual() ? ": " + reason.asText() : ""),
                        EventLimits.ERROR_MESSAGE_MAX_LENGTH));
                e.put(EventFields.DURATION_MS, millis(p.startNanos(), r.nanos()));
                emit(e);
            }
        }
    }

    private void call(JsonNode m, JsonNode id, Received r) {
        JsonNode params = m.path("params");
        String tool = params.path("name").isTextual() ? params.get("name").asText() : null;
        String key = key(id);
        Pending earlier = pending.remove(key);
        if (earlier != null) {
            ObjectNode e = base(TOOL_RESULT, earlier.tool(), r.stamp(), earlier.id());
            e.put(EventFields.ACTION_STATUS, ERROR);
            e.put(EventFields.ERROR_MESSAGE, "no answer: the client sent another request with the same id first");
            e.put(EventFields.DURATION_MS, millis(earlier.startNanos(), r.nanos()));
            emit(e);
        }
        ObjectNode e = base(TOOL_CALL, tool, r.stamp(), id);
        JsonNode arguments = params.get("arguments");
        GateMark mark = r.mark();
        if (mark != null) {
            if (mark.decisionId() != null) {
                e.put(EventFields.DECISION_ID, mark.decisionId());
            } else {
                ((ObjectNode) e.get(EventFields.METADATA)).put("gate", "unavailable");
            }
            if (mark.actionInput() != null) {
                e.set(EventFields.ACTION_INPUT, mark.actionInput());
            }
        } else if (r.unreadable() != null) {
            e.set(EventFields.ACTION_INPUT, EventContent.unreadable(r.line(), r.unreadable()));
        } else if (arguments != null && !arguments.isNull()) {
            e.set(EventFields.ACTION_INPUT, EventContent.asObject(arguments, "arguments"));
        }
        emit(EventContent.fit(e));
        pending.put(key, new Pending(tool, r.nanos(), id));
    }

    private void fromServer(JsonNode m, Received r) {
        JsonNode id = m.get("id");
        if (id == null || id.isNull() || m.has("method") || !(m.has("result") || m.has("error"))) {
            return;
        }
        String key = key(id);
        if (key.equals(initializeId)) {
            initializeId = null;
            JsonNode info = m.path("result").path("serverInfo");
            if (info.path("name").isTextual()) {
                serverName = info.get("name").asText();
            }
            if (info.path("version").isTextual()) {
                serverVersion = info.get("version").asText();
            }
            return;
        }
        Pending p = pending.remove(key);
        if (p == null) {
            return;
        }
        ObjectNode e = base(TOOL_RESULT, p.tool(), r.stamp(), p.id());
        JsonNode error = m.get("error");
        JsonNode result = m.get("result");
        boolean failed;
        String message = null;
        JsonNode output;
        if (error != null) {
            failed = true;
            JsonNode text = error.path("message");
            message = text.isTextual() ? text.asText() : "the MCP server answered with a JSON-RPC error";
            output = NODES.objectNode().set("error", error);
        } else {
            failed = result.path("isError").asBoolean(false);
            if (failed) {
                message = errorText(result);
            }
            output = result;
        }
        e.put(EventFields.ACTION_STATUS, failed ? ERROR : SUCCESS);
        if (message != null) {
            e.put(EventFields.ERROR_MESSAGE, EventContent.clip(message, EventLimits.ERROR_MESSAGE_MAX_LENGTH));
        }
        e.put(EventFields.DURATION_MS, millis(p.startNanos(), r.nanos()));
        if (r.unreadable() != null) {
            e.set(EventFields.ACTION_OUTPUT, EventContent.unreadable(r.line(), r.unreadable()));
        } else if (!output.isNull()) {
            e.set(EventFields.ACTION_OUTPUT, EventContent.asObject(output, "result"));
        }
        emit(EventContent.fit(e));
    }

    /** The text items of a failed result's content, joined: what the tool said went wrong. */
    private static String errorText(JsonNode result) {
        StringBuilder text = new StringBuilder();
        for (JsonNode item : result.path("content")) {
            if ("text".equals(item.path("type").asText()) && item.path("text").isTextual()) {
                if (!text.isEmpty()) {
                    text.append('\n');
                }
                text.append(item.get("text").asText());
                if (text.length() > EventLimits.ERROR_MESSAGE_MAX_LENGTH) {
                    break;
                }
            }
        }
        return text.isEmpty() ? "the tool reported an error (isError)" : text.toString();
    }

    /**
     * Ends the capture stream as the proxy exits, after {@link #finish}: a {@code CAPTURE_END} event with
     * {@code capture_last}, so numbers lost before it are recorded as a gap at once. Nothing when the
     * proxy recorded nothing.
     */
    void end(Sequencer.Stamp stamp) {
        if (captureSeq == 0) {
            return;
        }
        ObjectNode e = base(EventFields.CAPTURE_END_ACTION_TYPE, "exit", stamp, NODES.nullNode());
        ((ObjectNode) e.get(EventFields.METADATA)).remove("jsonrpc_id");
        e.put(EventFields.CAPTURE_LAST, true);
        emit(e);
    }

    /**
     * Hands an event on, summarised in place if the event rules would refuse its content, numbered in
     * the proxy's capture stream as it is created (before the shipper, the network or the spool).
     */
    private void emit(ObjectNode event) {
        ObjectNode e = EventContent.storable(event);
        e.put(EventFields.CAPTURE_ID, captureId);
        e.put(EventFields.CAPTURE_SEQ, ++captureSeq);
        events.accept(e);
    }

    private ObjectNode base(String actionType, String tool, Sequencer.Stamp stamp, JsonNode id) {
        ObjectNode e = NODES.objectNode();
        e.put(EventFields.AGENT_ID, agentId());
        e.put(EventFields.SESSION_ID, sessionId);
        e.put(EventFields.SOURCE, SOURCE);
        e.put(EventFields.CAPTURE_METHOD, SOURCE);
        e.put(EventFields.ACTION_TYPE, actionType);
        if (tool != null) {
            e.put(EventFields.ACTION_NAME, EventContent.clip(tool, EventLimits.STRING_MAX_LENGTH));
        }
        e.put(EventFields.TIMESTAMP, EventTime.formatRecordedAt(stamp.at()));
        ObjectNode metadata = e.putObject(EventFields.METADATA);
        // The id as text: an id is a string or any number, and a number the event rules cannot hold
        // exactly must not make the event unstorable.
        metadata.put("jsonrpc_id", id.isTextual() ? id.asText() : id.toString());
        metadata.put(PROXY_SEQ, stamp.seq());
        if (serverName != null) {
            metadata.put("mcp_server_name", EventContent.clip(serverName, EventLimits.STRING_MAX_LENGTH));
        }
        if (serverVersion != null) {
            metadata.put("mcp_server_version", EventContent.clip(serverVersion, EventLimits.STRING_MAX_LENGTH));
        }
        return e;
    }

    /** The agent id, fixed the first time it is needed (see the class comment). */
    String agentId() {
        if (agentId == null) {
            agentId = explicitAgentId != null ? explicitAgentId
                    : serverName != null ? agentIdFor(serverName) : fallbackAgentId;
        }
        return agentId;
    }

    /** {@code mcp:<name>}, made a valid agent id: control characters dropped, at most 256 characters. */
    static String agentIdFor(String name) {
        StringBuilder b = new StringBuilder("mcp:");
        name.codePoints().filter(c -> !Character.isISOControl(c)).forEach(b::appendCodePoint);
        if (b.length() == 4) {
            b.append("unnamed");
        }
        return EventContent.clip(b.toString(), EventLimits.AGENT_ID_MAX_LENGTH);
    }

    private static String fileName(String command) {
        String name = command.replace('\\', '/');
        int slash = name.lastIndexOf('/');
        return slash >= 0 ? name.substring(slash + 1) : name;
    }

    /** A JSON-RPC id as a map key: numbers by value (1 and 1.0 are the same id), strings apart from numbers. */
    private static String key(JsonNode id) {
        if (id.isNumber()) {
            return "n:" + id.decimalValue().stripTrailingZeros().toPlainString();
        }
        return id.isTextual() ? "s:" + id.asText() : "j:" + id;
    }

    private static long millis(long fromNanos, long toNanos) {
        return Math.max(0, (toNanos - fromNanos) / 1_000_000);
    }

    private static boolean isBlank(byte[] line) {
        for (byte b : line) {
            if (b != ' ' && b != '\t' && b != '\r' && b != '\n') {
                return false;
            }
        }
        return true;
    }
}
