package io.trailproof.llmgateway;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.trailproof.core.event.EventLimits;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.HeaderMap;
import io.undertow.util.HeaderValues;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;
import org.xnio.IoUtils;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;

/**
 * Passes one call through to the upstream and its answer back (src/site/llm-gateway.md#what-passes-through):
 * the request's method, path, query, headers and body as they came, less the hop-by-hop headers and
 * the gateway's own; the answer's status, headers and body as they came, each piece of the body
 * written and flushed to the client as soon as it arrives. Calls of the recorded APIs are handed to
 * the {@link CallRecorder} at their start and their end.
 *
 * <p>The gateway answers by itself only when it cannot pass a call on: a header naming an invalid
 * agent or session (400), a request body over {@link #MAX_REQUEST_BYTES} (413), an upstream that
 * cannot be reached or closes before its answer began (502). Those answers have the caller's API's
 * error shape. An upstream that breaks off an answer already begun makes the gateway break off the
 * client's connection too, so the client sees a cut answer, never a shortened one that looks whole.
 *
 * <p>Each call runs on a thread of the gateway's call pool, which reads the upstream's answer itself
 * and writes each piece on: one thread made runnable when the answer arrives, no hand-over.
 */
final class GatewayHandler implements HttpHandler {

    /** The largest request body the gateway passes on. */
    static final int MAX_REQUEST_BYTES = 32 << 20;
    private static final int CHUNK = 16 * 1024;
    private static final Set<String> WITHOUT_BODY = Set.of("GET", "HEAD", "DELETE", "OPTIONS", "TRACE");
    private static final String PREFIX = "trailproof llm-gateway: ";

    private final String upstreamBase;
    private final String basePath;
    private final UpstreamClient upstream;
    private final CallRecorder recorder;
    private final String defaultAgent;
    private final Clock clock;
    private final Executor executor;
    private final InFlight inFlight;
    private final ObjectMapper json = new ObjectMapper();

    /**
     * @param upstream the upstream's base URL; a request's path and query are appended to its path
     * @param recorder where calls are recorded, or null to pass through only
     * @param defaultAgent the agent of calls without an {@code X-Trailproof-Agent} header
     */
    GatewayHandler(URI upstreamBase, UpstreamClient upstream, CallRecorder recorder, String defaultAgent, Clock clock,
            Executor executor, InFlight inFlight) {
        String base = upstreamBase.toString();
        this.upstreamBase = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
        String path = upstreamBase.getRawPath() == null ? "" : upstreamBase.getRawPath();
        this.basePath = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        this.upstream = upstream;
        this.recorder = recorder;
        this.defaultAgent = defaultAgent;
        this.clock = clock;
        this.executor = executor;
        this.inFlight = inFlight;
    }

    @Override
    public void handleRequest(HttpServerExchange exchange) {
        if (exchange.isInIoThread()) {
            exchange.dispatch(executor, this);
            return;
        }
        inFlight.enter();
        try {
            pass(exchange);
        } finally {
            inFlight.leave();
        }
    }

    private void pass(HttpServerExchange exchange) {
        long startNanos = System.nanoTime();
        Instant at = clock.instant();
        exchange.startBlocking();
        HeaderMap in = exchange.getRequestHeaders();
        String method = exchange.getRequestMethod().toString();
        ApiKind kind = ApiKind.of(method, exchange.getRequestPath());
        boolean anthropic = kind.anthropic() || in.contains("anthropic-version");

        String agent = in.getFirst(HopHeaders.AGENT);
        if (agent == null) {
            agent = defaultAgent;
        } else if (agent.isEmpty() || agent.length() > EventLimits.AGENT_ID_MAX_LENGTH
                || agent.codePoints().anyMatch(Character::isISOControl)) {
            refuse(exchange, anthropic, 400, "invalid_request_error", "the X-Trailproof-Agent header must be 1 to "
                    + EventLimits.AGENT_ID_MAX_LENGTH + " characters without control characters");
            return;
        }
        String session = in.getFirst(HopHeaders.SESSION);
        if (session != null && (session.isEmpty() || session.length() > EventLimits.STRING_MAX_LENGTH)) {
            refuse(exchange, anthropic, 400, "invalid_request_error", "the X-Trailproof-Session header must be 1 to "
                    + EventLimits.STRING_MAX_LENGTH + " characters");
            return;
        }
        byte[] body;
        try {
            if (exchange.getRequestContentLength() > MAX_REQUEST_BYTES) {
                tooLarge(exchange, anthropic);
                return;
            }
            body = exchange.getInputStream().readNBytes(MAX_REQUEST_BYTES + 1);
        } catch (IOException clientGone) {
            IoUtils.safeClose(exchange.getConnection());
            return;
        }
        if (body.length > MAX_REQUEST_BYTES) {
            tooLarge(exchange, anthropic);
            return;
        }

        String target;
        List<Map.Entry<String, String>> headers;
        try {
            target = target(exchange);
            headers = upstreamHeaders(exchange.getRequestHeaders());
        } catch (IllegalArgumentException e) {
            refuse(exchange, anthropic, 400, "invalid_request_error", "the request cannot be passed on: " + e.getMessage());
            return;
        }
        CallRecorder.Call call = recorder != null && kind != ApiKind.OTHER
                ? recorder.begin(kind, agent, session, body, at, startNanos) : null;
        CallRecorder.Ending ending = null;
        try {
            ending = forward(exchange, method, target, headers, body, anthropic, call != null);
        } finally {
            if (call != null) {
                recorder.end(call, ending != null ? ending : new CallRecorder.Ending(500, null, null, null, null,
                        "the gateway failed while passing the call on", clock.instant(), System.nanoTime()));
            }
        }
    }

    /** The upstream's request target: its base path, then the request's path and query as they came. */
    private String target(HttpServerExchange exchange) {
        String path = exchange.getRequestURI();
        if (!path.startsWith("/")) {
            path = exchange.getRequestPath(); // an absolute-form request target: its path only
        }
        String query = exchange.getQueryString();
        String target = basePath + path + (query == null || query.isEmpty() ? "" : "?" + query);
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            if (c <= ' ' || c >= 0x7f) {
                throw new IllegalArgumentException("the request target has a character that must be escaped");
            }
        }
        return target;
    }

    /** The request's headers that go upstream, in order, with {@code Accept-Encoding} narrowed. */
    private static List<Map.Entry<String, String>> upstreamHeaders(HeaderMap headers) {
        Set<String> listed = HopHeaders.connectionListed(values(headers, Headers.CONNECTION));
        List<Map.Entry<String, String>> out = new ArrayList<>();
        for (HeaderValues values : headers) {
            String name = values.getHeaderName().toString();
            if (HopHeaders.forwardRequestHeader(name.toLowerCase(Locale.ROOT), listed)) {
                for (String value : values) {
                    out.add(Map.entry(name, value));
                }
            }
        }
        String accept = HopHeaders.acceptEncoding(values(headers, Headers.ACCEPT_ENCODING));
        if (accept != null) {
            out.add(Map.entry("Accept-Encoding", accept));
        }
        return out;
    }

    /** Sends the request upstream and the answer back; says how the call ended. */
    private CallRecorder.Ending forward(HttpServerExchange exchange, String method, String target,
            List<Map.Entry<String, String>> headers, byte[] body, boolean anthropic, boolean recording) {
        UpstreamClient.Answer response;
        try {
            response = upstream.send(method, target, headers, body, !WITHOUT_BODY.contains(method));
        } catch (IOException e) {
            String message = e instanceof UpstreamClient.Unreachable
                    ? "the upstream " + upstreamBase + " cannot be reached (" + e.getMessage() + ")"
                    : "the upstream " + upstreamBase + " closed the connection before answering (" + describe(e) + ")";
            refuse(exchange, anthropic, 502, "api_error", message);
            return new CallRecorder.Ending(502, null, null, null, null, message, clock.instant(), System.nanoTime());
        }
        int status = response.status;
        exchange.setStatusCode(status);
        HeaderMap out = exchange.getResponseHeaders();
        Set<String> listed = HopHeaders.connectionListed(response.headers("connection"));
        for (Map.Entry<String, String> h : response.headers) {
            if (HopHeaders.forwardResponseHeader(h.getKey().toLowerCase(Locale.ROOT), listed)) {
                out.add(HttpString.tryFromString(h.getKey()), h.getValue());
            }
        }
        String contentType = response.header("content-type");
        String contentEncoding = response.header("content-encoding");
        String requestId = response.header("x-request-id") != null ? response.header("x-request-id")
                : response.header("request-id");
        BodyCopy copy = new BodyCopy();
        String failure = null;
        try (response) {
            InputStream up = response.body;
            OutputStream client = exchange.getOutputStream();
            byte[] buffer = new byte[CHUNK];
            while (true) {
                int n;
                try {
                    n = up.read(buffer);
                } catch (IOException e) {
                    failure = "the upstream connection broke after " + copy.size() + " bytes of the answer ("
                            + describe(e) + ")";
                    break;
                }
                if (n < 0) {
                    break;
                }
                if (n == 0) {
                    continue;
                }
                try {
                    client.write(buffer, 0, n);
                    client.flush();
                } catch (IOException e) {
                    failure = "the client closed the connection after " + copy.size() + " bytes of the answer";
                    break;
                }
                if (recording) {
                    copy.add(buffer, 0, n);
                }
            }
        }
        if (failure == null) {
            exchange.endExchange();
        } else if (!exchange.isResponseStarted() && copy.size() == 0 && failure.startsWith("the upstream")) {
            // Nothing reached the client yet: it can still get a clear 502.
            out.clear();
            refuse(exchange, anthropic, 502, "api_error", PREFIX + failure);
            return new CallRecorder.Ending(502, null, null, null, requestId, failure, clock.instant(), System.nanoTime());
        } else {
            IoUtils.safeClose(exchange.getConnection()); // the client sees a cut answer
        }
        return new CallRecorder.Ending(status, contentType, contentEncoding, copy, requestId, failure, clock.instant(),
                System.nanoTime());
    }

    private static String describe(Exception e) {
        String message = e.getMessage();
        return e.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }

    private void tooLarge(HttpServerExchange exchange, boolean anthropic) {
        refuse(exchange, anthropic, 413, "request_too_large", "the request body is larger than the gateway passes on ("
                + (MAX_REQUEST_BYTES >> 20) + " MiB)");
        exchange.setPersistent(false);
    }

    /** Answers the call itself, in the caller's API's error shape. */
    private void refuse(HttpServerExchange exchange, boolean anthropic, int status, String type, String message) {
        byte[] body;
        try {
            body = json.writeValueAsBytes(ApiKind.errorBody(anthropic, type,
                    message.startsWith(PREFIX) ? message : PREFIX + message));
        } catch (IOException e) {
            throw new IllegalStateException("a tree of strings always serializes", e);
        }
        exchange.setStatusCode(status);
        exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
        exchange.getResponseHeaders().put(Headers.CONTENT_LENGTH, body.length);
        try {
            OutputStream out = exchange.getOutputStream();
            out.write(body);
            out.close();
        } catch (IOException clientGone) {
            IoUtils.safeClose(exchange.getConnection());
        }
    }

    private static List<String> values(HeaderMap headers, HttpString name) {
        HeaderValues v = headers.get(name);
        return v == null ? List.of() : new ArrayList<>(v);
    }
}
