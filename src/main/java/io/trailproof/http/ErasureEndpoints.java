package io.trailproof.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.config.ApiKey;
import io.trailproof.core.event.EventErasure;
import io.trailproof.core.json.JsonRejection;
import io.trailproof.core.json.StrictJson;
import io.trailproof.erasure.ErasureService;
import io.trailproof.index.BadQueryException;
import io.trailproof.ledger.LedgerErasures;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;

import java.io.ByteArrayOutputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * {@code POST /v1/admin/erasures} and {@code GET /v1/admin/erasures} (src/site/erasure.md#api).
 * Any fault in the body is a 400 that erases nothing; unknown {@code event_ids} are a 404 that
 * erases nothing. In cluster mode the erasure goes through the topic (src/site/erasure.md#cluster-mode);
 * a dry run and the list are answered from this node's log.
 */
final class ErasureEndpoints {

    private static final Set<String> KEYS = Set.of("event_ids", "agent_id", "session_id", "since", "until", "q",
            "fields", "reason", "dry_run");

    private final ErasureService erasures;
    private final RequestBodies bodies;

    ErasureEndpoints(ErasureService erasures, RequestBodies bodies) {
        this.erasures = erasures;
        this.bodies = bodies;
    }

    void register(Router router) {
        router.add("POST", "/v1/admin/erasures", ApiKey.Role.ADMIN, (ex, p) -> erase(ex))
                .add("GET", "/v1/admin/erasures", ApiKey.Role.ADMIN, (ex, p) -> list(ex));
    }

    private void erase(HttpServerExchange ex) throws Exception {
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
        String agentId = BodyMembers.text(body, "agent_id");
        String q = BodyMembers.text(body, "q");
        int selectors = (ids != null ? 1 : 0) + (agentId != null && q == null ? 1 : 0) + (q != null ? 1 : 0);
        if (selectors != 1) {
            throw ApiException.badRequest("name exactly one selector: event_ids, agent_id (with optional session_id, "
                    + "since, until) or q (with the same filters)");
        }
        String sessionId = BodyMembers.text(body, "session_id");
        Instant since = BodyMembers.time(body, "since");
        Instant until = BodyMembers.time(body, "until");
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
        String reason = BodyMembers.text(body, "reason");
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
        } catch (ErasureService.NothingToEraseException e) {
            // Nothing matched (a mistyped selector): 404 as for unknown event ids. Only erased events
            // matched: 409, the request conflicts with their state. Either way nothing is recorded.
            throw e.alreadyErased() == 0 ? ApiException.notFound(e.getMessage())
                    : new ApiException(409, e.getMessage());
        } catch (BadQueryException e) {
            throw ApiException.badRequest(e.getMessage());
        } catch (LedgerErasures.ErasureTooLargeException e) {
            throw ApiException.badRequest(e.getMessage());
        }
    }

    private void list(HttpServerExchange ex) throws Exception {
        Params p = new Params(ex);
        List<byte[]> page = erasures.list(p.offset(), p.limit());
        ex.getResponseHeaders().put(HttpString.tryFromString("X-Total-Count"),
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
     * The name the erasure record keeps for who asked: the signed-in person, or the key's name as the
     * access log gives it ({@code key-} and the first 8 hex digits of its SHA-256 for an unnamed key),
     * never the key; null when authentication is off.
     */
    private static String keyName(HttpServerExchange ex) {
        String name = Caller.of(ex).name();
        return Caller.ANONYMOUS.equals(name) ? null : name;
    }
}
