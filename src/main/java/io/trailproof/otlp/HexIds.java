package io.trailproof.otlp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Base64;
import java.util.HexFormat;
import java.util.List;

/**
 * The one place where OTLP/JSON differs from protobuf's JSON mapping beyond what {@code JsonFormat}
 * reads: ids are hex (case-insensitive), not base64. Rewrites them in place in a decoded request
 * tree. Both the lowerCamelCase and the original field names are visited, as {@code JsonFormat}
 * accepts both. Where the tree does not have the expected shape nothing is changed: the parser
 * then reports the shape.
 */
final class HexIds {

    private static final HexFormat HEX = HexFormat.of();

    private HexIds() {
    }

    static void toBase64(ObjectNode request) throws UndecodableBody {
        int r = 0;
        for (JsonNode resourceSpans : array(request, "resourceSpans", "resource_spans")) {
            int s = 0;
            for (JsonNode scopeSpans : array(resourceSpans, "scopeSpans", "scope_spans")) {
                int i = 0;
                for (JsonNode span : array(scopeSpans, "spans", "spans")) {
                    String where = "resourceSpans[" + r + "].scopeSpans[" + s + "].spans[" + i + "]";
                    rewrite(span, where, "traceId", "trace_id");
                    rewrite(span, where, "spanId", "span_id");
                    rewrite(span, where, "parentSpanId", "parent_span_id");
                    int l = 0;
                    for (JsonNode link : array(span, "links", "links")) {
                        rewrite(link, where + ".links[" + l + "]", "traceId", "trace_id");
                        rewrite(link, where + ".links[" + l + "]", "spanId", "span_id");
                        l++;
                    }
                    i++;
                }
                s++;
            }
            r++;
        }
    }

    private static Iterable<JsonNode> array(JsonNode parent, String name, String original) {
        if (parent == null || !parent.isObject()) {
            return List.of();
        }
        JsonNode a = parent.has(name) ? parent.get(name) : parent.get(original);
        return a != null && a.isArray() ? a : List.of();
    }

    private static void rewrite(JsonNode node, String where, String name, String original) throws UndecodableBody {
        if (!node.isObject()) {
            return;
        }
        ObjectNode o = (ObjectNode) node;
        for (String field : new String[] {name, original}) {
            JsonNode v = o.get(field);
            if (v == null || !v.isTextual()) {
                continue;
            }
            String hex = v.asText();
            byte[] raw;
            try {
                raw = HEX.parseHex(hex);
            } catch (IllegalArgumentException e) {
                throw new UndecodableBody(where + "." + name + " is not hex (\"" + AnyValues.abbreviate(hex)
                        + "\"); OTLP/JSON sends ids as hex digits, e.g. 32 for a trace id");
            }
            o.put(field, Base64.getEncoder().encodeToString(raw));
        }
    }
}
