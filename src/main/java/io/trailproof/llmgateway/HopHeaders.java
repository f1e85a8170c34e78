package io.trailproof.llmgateway;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which headers a proxy must not pass on (RFC 9110 section 7.6.1): the hop-by-hop ones, those the
 * {@code Connection} header names, and the gateway's own; and the {@code Accept-Encoding} the gateway
 * sends upstream. Pure: no I/O.
 */
final class HopHeaders {

    /** Headers naming the agent and session of a call; read by the gateway, never passed upstream. */
    static final String AGENT = "x-trailproof-agent";
    static final String SESSION = "x-trailproof-session";

    private static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "proxy-connection",
            "proxy-authenticate", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade");
    /** Set by the HTTP client from the request itself. */
    private static final Set<String> FRAMING = Set.of("host", "content-length", "expect");
    /** Content codings the gateway can undo to read an answer for recording. */
    private static final Set<String> READABLE_CODINGS = Set.of("gzip", "x-gzip", "deflate", "identity");

    private HopHeaders() {
    }

    /** The header names a {@code Connection} header lists, lower-cased. */
    static Set<String> connectionListed(List<String> connectionValues) {
        Set<String> listed = new TreeSet<>();
        for (String value : connectionValues) {
            for (String token : value.split(",")) {
                String t = token.strip().toLowerCase(Locale.ROOT);
                if (!t.isEmpty()) {
                    listed.add(t);
                }
            }
        }
        return listed;
    }

    /** Whether a request header goes upstream as it came ({@code Accept-Encoding} is rewritten apart). */
    static boolean forwardRequestHeader(String lowerName, Set<String> connectionListed) {
        return !HOP_BY_HOP.contains(lowerName) && !FRAMING.contains(lowerName) && !connectionListed.contains(lowerName)
                && !AGENT.equals(lowerName) && !SESSION.equals(lowerName) && !"accept-encoding".equals(lowerName);
    }

    /** Whether a response header goes to the client as it came. */
    static boolean forwardResponseHeader(String lowerName, Set<String> connectionListed) {
        return !lowerName.startsWith(":") && !HOP_BY_HOP.contains(lowerName) && !connectionListed.contains(lowerName);
    }

    /**
     * The {@code Accept-Encoding} to send upstream: the codings the client accepts that the gateway can
     * read too, each as the client wrote it (a {@code br} or {@code zstd} answer could pass through but
     * not be recorded); null when none is left, so the upstream answers unencoded, which every client
     * accepts unless it refused {@code identity} explicitly.
     */
    static String acceptEncoding(List<String> values) {
        List<String> kept = new ArrayList<>();
        for (String value : values) {
            for (String item : value.split(",")) {
                String trimmed = item.strip();
                int semicolon = trimmed.indexOf(';');
                String coding = (semicolon < 0 ? trimmed : trimmed.substring(0, semicolon)).strip().toLowerCase(Locale.ROOT);
                if (READABLE_CODINGS.contains(coding)) {
                    kept.add(trimmed);
                }
            }
        }
        return kept.isEmpty() ? null : String.join(", ", kept);
    }
}
