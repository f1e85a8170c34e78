package io.trailproof.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.config.ApiKey;
import io.trailproof.core.event.EventErasure;
import io.trailproof.core.event.EventTime;
import io.trailproof.core.json.JsonRejection;
import io.trailproof.core.json.StrictJson;
import io.trailproof.erasure.ErasureService;
import io.trailproof.index.BadQueryException;
import io.trailproof.ledger.LedgerErasures;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * {@code POST /v1/admin/erasures} and {@code GET /v1/admin/erasures} (src/site/erasure.md#api).
 * Any fault in the body is a 400 that erases nothing; unknown {@code event_ids} are a 404 that
 * erases nothing. In cluster mode both refuse (409): erasure does not go through the topic yet.
 */
final class ErasureEndpoints {

    private static final Set<String> KEYS = Set.of("event_ids", "agent_id", "session_id", "since", "until", "q",
            "fields", "reason", "dry_run");

    private final ErasureService erasures;
    private final boolean cluster;
    private final RequestBodies bodies;

    ErasureEndpoints(ErasureService erasures, boolean cluster, RequestBodies bodies) {
        this.erasures = erasures;
        this.cluster = cluster;
        this.bodies = bodies;
    }

    void register(Router router) {
        router.add("POST", "/v1/admin/erasures", ApiKey.Role.ADMIN, (ex, p) -> erase(ex))
                .add("GET", "/v1/admin/erasures", ApiKey.Role.ADMIN, (ex, p) -> list(ex));
    }

    private void refuseInCluster() throws ApiException {
        if (cluster) {
            throw new ApiException(409, "erasure is not available in cluster mode: every node would have to apply "
                    + "it at the same position of the topic, which this version does not do; nothing was erased");
        }
    }

    private void erase(HttpServerExchange ex) throws Exception {
        refuseInCluster();
        JsonNode body;
        try {
            body = StrictJson.parse(bodies.read(ex), 4);
        } catch (JsonRejection e) {
            throw ApiException.badRequest(e.getMessage());
        }
        if (!body.isObject()) {
            throw ApiException.badRequest("the body must be a JSON object such as "
                    + "{\"event_ids\": [\"...\"], \"reason\": \"...\"}");
        }
        for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!KEYS.contains(name)) {
                throw ApiException.badRequest("unknown field " + Params.shorten(name) + "; the body may hold "
                        + "event_ids, agent_id, session_id, since, until, q, fields, reason and dry_run");
            }
        }
        List<String> ids = null;
        JsonNode idsNode = body.get("event_ids");
        if (idsNode != null && !idsNode.isNull()) {
            if (!idsNode.isArray() || idsNode.isEmpty() || idsNode.size() > ErasureService.MAX_EVENT_IDS) {
                throw ApiException.badRequest("event_ids must be an array of 1.." + ErasureService.MAX_EVENT_IDS
                        + " event ids");
            }
            ids = new ArrayList<>();
            for (JsonNode n : idsNode) {
                if (!n.isTextual()) {
                    throw ApiException.badRequest("event_ids must hold strings (event ids)");
                }
                ids.add(n.textValue());
            }
        }
        String agentId = text(body, "agent_id");
        String q = text(body, "q");
        int selectors = (ids != null ? 1 : 0) + (agentId != null && q == null ? 1 : 0) + (q != null ? 1 : 0);
        if (selectors != 1) {
            throw ApiException.badRequest("name exactly one selector: event_ids, agent_id (with optional session_id, "
                    + "since, until) or q (with the same filters)");
        }
        String sessionId = text(body, "session_id");
        Instant since = time(body, "since");
        Instant until = time(body, "until");
        if (ids != null && (agentId != null || sessionId != null || since != null || until != null)) {
            throw ApiException.badRequest("event_ids takes no filters; give agent_id or q to select by them");
        }
        List<String> fields = EventErasure.ERASABLE;
        JsonNode f = body.get("fields");
        if (f != null && !f.isNull()) {
            if (!f.isArray() || f.isEmpty()) {
                throw ApiException.badRequest("fields must be a non-empty array of field names");
            }
            fields = new ArrayList<>();
            for (JsonNode n : f) {
                if (!n.isTextual() || !EventErasure.erasable(n.textValue())) {
                    throw ApiException.badRequest("fields may name " + String.join(", ", EventErasure.ERASABLE)
                            + "; not " + Params.shorten(n.asText()));
                }
                fields.add(n.textValue());
            }
        }
        String reason = text(body, "reason");
        if (reason == null || reason.length() > 1024) {
            throw ApiException.badRequest("reason is required: 1..1024 characters saying why the content is erased");
        }
        JsonNode dry = body.get("dry_run");
        if (dry != null && !dry.isNull() && !dry.isBoolean()) {
            throw ApiException.badRequest("dry_run must be true or false");
        }
        ErasureService.Selector selector = new ErasureService.Selector(ids, agentId, sessionId, since, until, q);
        try {
            ObjectNode answer = dry != null && dry.booleanValue() ? erasures.dryRun(selector)
                    : erasures.erase(selector, fields, reason, keyName(ex));
            Responses.json(ex, 200, answer);
        } catch (ErasureService.UnknownEventsException e) {
            throw ApiException.notFound(e.getMessage());
        } catch (BadQueryException e) {
            throw ApiException.badRequest(e.getMessage());
        } catch (LedgerErasures.ErasureTooLargeException e) {
            throw ApiException.badRequest(e.getMessage());
        }
    }

    private void list(HttpServerExchange ex) throws Exception {
        refuseInCluster();
        Params p = new Params(ex);
        List<byte[]> page = erasures.list(p.offset(), p.limit());
        ex.getResponseHeaders().put(io.undertow.util.HttpString.tryFromString("X-Total-Count"),
                Long.toString(erasures.count()));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write('[');
        for (int i = 0; i < page.size(); i++) {
            if (i > 0) {
                out.write(',');
            }
            out.write(page.get(i));
        }
        out.write(']');
        ex.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
        Responses.bytes(ex, 200, out.toByteArray());
    }

    /**
     * The name the erasure record keeps for the key that asked: keys have no names, so a short
     * fingerprint of it (never the key itself); null when authentication is off.
     */
    private static String keyName(HttpServerExchange ex) throws Exception {
        String auth = ex.getRequestHeaders().getFirst(Headers.AUTHORIZATION);
        if (auth == null || !auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        byte[] d = MessageDigest.getInstance("SHA-256").digest(auth.substring(7).trim().getBytes(StandardCharsets.UTF_8));
        return "sha256:" + HexFormat.of().formatHex(d, 0, 6);
    }

    private static String text(JsonNode body, String key) throws ApiException {
        JsonNode v = body.get(key);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual() || v.textValue().isEmpty()) {
            throw ApiException.badRequest(key + " must be a non-empty string");
        }
        return v.textValue();
    }

    private static Instant time(JsonNode body, String key) throws ApiException {
        String value = text(body, key);
        if (value == null) {
            return null;
        }
        try {
            return EventTime.parseTimestamp(value);
        } catch (DateTimeParseException e) {
            throw ApiException.badRequest(key + " must be an ISO 8601 date-time such as 2026-01-31T09:00:00Z, got '"
                    + Params.shorten(value) + "'");
        }
    }
}
