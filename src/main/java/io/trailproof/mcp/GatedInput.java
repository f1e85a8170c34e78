package io.trailproof.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.json.JsonRejection;
import io.trailproof.core.json.StrictJson;
import io.trailproof.shipping.Notices;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;

/**
 * The client-to-server direction under {@code --gate} (src/site/mcp-proxy.md#gate): whole lines pass
 * on, in order, as read, except {@code tools/call} requests, each of which waits on a thread of its own
 * for its decision while the lines after it keep flowing. An allowed call is then passed on unchanged;
 * a refused one never reaches the server and the client gets a tool result with {@code isError: true}
 * and the reason instead.
 *
 * <p>What cannot be checked is not passed on: a {@code tools/call} the strict reader refuses (a
 * duplicate key could make the server read other arguments than the gate saw), a JSON-RPC batch that
 * holds a {@code tools/call} (each of its requests is answered with an error), and a line longer than
 * the proxy reads (dropped, with a line on standard error).
 */
final class GatedInput implements Passage {

    /** Receives each line that is passed on, just before it is written, in the order written. */
    interface Forwarded {
        void line(byte[] content, ToolCallRecorder.GateMark mark);
    }

    private static final int CHUNK = 64 * 1024;
    private static final int INVALID_REQUEST = -32600;
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final ObjectMapper LENIENT = new ObjectMapper(StrictJson.unlimitedFactory());
    private static final ObjectMapper WRITER = new ObjectMapper();

    private final InputStream from;
    private final OutputStream to;
    private final ClientOutput client;
    private final ToolCallGate gate;
    private final Forwarded forwarded;
    private final Notices notices;
    private final int maxLine;
    private final Object lock = new Object();
    private boolean closed;
    private boolean destinationFailed;
    /** The line being read: its bytes so far (none once it is longer than {@code maxLine}) and its length. */
    private final ByteArrayOutputStream current = new ByteArrayOutputStream();
    private long currentLength;

    GatedInput(InputStream from, OutputStream to, ClientOutput client, ToolCallGate gate, Forwarded forwarded,
            Notices notices, int maxLine) {
        this.from = from;
        this.to = to;
        this.client = client;
        this.gate = gate;
        this.forwarded = forwarded;
        this.notices = notices;
        this.maxLine = maxLine;
    }

    @Override
    public void run() {
        byte[] buffer = new byte[CHUNK];
        try {
            int n;
            while ((n = from.read(buffer)) >= 0 && !isClosed()) {
                int start = 0;
                for (int i = 0; i < n; i++) {
                    if (buffer[i] == '\n') {
                        append(buffer, start, i - start);
                        line(true);
                        start = i + 1;
                    }
                }
                append(buffer, start, n - start);
            }
            if (currentLength > 0) {
                line(false);
            }
        } catch (IOException e) {
            // the client's side broke: treated as its end
        } finally {
            // Calls still waiting for a decision are not passed on after the client's end of input:
            // there is nobody left to read their results.
            stop();
            synchronized (lock) {
                try {
                    to.close();
                } catch (IOException ignored) {
                    // the server's input is closed already
                }
            }
        }
    }

    /** Passes nothing on from now on: neither what is read later nor calls still waiting for a decision. */
    @Override
    public void stop() {
        synchronized (lock) {
            closed = true;
        }
    }

    private boolean isClosed() {
        synchronized (lock) {
            return closed;
        }
    }

    private void append(byte[] chunk, int offset, int length) {
        if (length == 0) {
            return;
        }
        currentLength += length;
        if (currentLength <= maxLine) {
            current.write(chunk, offset, length);
        } else if (current.size() > 0) {
            current.reset();
        }
    }

    private void line(boolean terminated) {
        long length = currentLength;
        byte[] content = length <= maxLine ? current.toByteArray() : null;
        current.reset();
        currentLength = 0;
        if (content == null) {
            notices.always("a message of " + length + " bytes was longer than the proxy reads (" + (maxLine >> 20)
                    + " MiB) and was not passed on: under --gate every message must be checked");
            return;
        }
        byte[] whole = terminated ? Arrays.copyOf(content, content.length + 1) : content;
        if (terminated) {
            whole[content.length] = '\n';
        }
        JsonNode root;
        try {
            root = LENIENT.readTree(content);
        } catch (IOException notJson) {
            root = null;
        }
        if (root != null && root.isObject() && isCall(root)) {
            JsonNode strict;
            try {
                strict = StrictJson.parse(content, ToolCallRecorder.READ_DEPTH);
            } catch (JsonRejection e) {
                answer(root.get("id"), "trailproof gate: the call could not be read faithfully (" + e.getMessage()
                        + "), so it was not passed on");
                return;
            }
            Thread.ofVirtual().name("trailproof-mcp-gate").start(() -> decide(strict, content, whole));
            return;
        }
        if (root != null && root.isArray() && containsCall(root)) {
            for (JsonNode m : root) {
                if (m.isObject() && m.hasNonNull("id") && m.path("method").isTextual()) {
                    error(m.get("id"), "a JSON-RPC batch that holds a tools/call is not passed on under --gate; "
                            + "send the call alone");
                }
            }
            return;
        }
        forward(content, whole, null);
    }

    private void decide(JsonNode call, byte[] content, byte[] whole) {
        ToolCallGate.Outcome outcome = gate.decide(call);
        if (outcome instanceof ToolCallGate.Forward f) {
            forward(content, whole, f.mark());
        } else if (outcome instanceof ToolCallGate.Refuse r) {
            answer(call.get("id"), r.reason());
        }
    }

    private void forward(byte[] content, byte[] whole, ToolCallRecorder.GateMark mark) {
        synchronized (lock) {
            if (closed) {
                return;
            }
            forwarded.line(content, mark);
            if (!destinationFailed) {
                try {
                    to.write(whole);
                    to.flush();
                } catch (IOException e) {
                    destinationFailed = true;
                }
            }
        }
    }

    /** Answers a refused call with a tool result: an error the model can read, not a protocol failure. */
    private void answer(JsonNode id, String reason) {
        ObjectNode result = NODES.objectNode();
        result.putArray("content").addObject().put("type", "text").put("text", reason);
        result.put("isError", true);
        reply(NODES.objectNode().put("jsonrpc", "2.0").<ObjectNode>set("id", id).set("result", result));
    }

    private void error(JsonNode id, String message) {
        ObjectNode error = NODES.objectNode().put("code", INVALID_REQUEST).put("message", message);
        reply(NODES.objectNode().put("jsonrpc", "2.0").<ObjectNode>set("id", id).set("error", error));
    }

    private void reply(ObjectNode message) {
        try {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            WRITER.writeValue(line, message);
            line.write('\n');
            client.writeLine(line.toByteArray());
        } catch (IOException e) {
            // the client went away: nobody to answer
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean isCall(JsonNode m) {
        return "tools/call".equals(m.path("method").asText(null)) && m.hasNonNull("id");
    }

    private static boolean containsCall(JsonNode batch) {
        for (JsonNode m : batch) {
            if (m.isObject() && isCall(m)) {
                return true;
            }
        }
        return false;
    }
}
