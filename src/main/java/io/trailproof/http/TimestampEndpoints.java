package io.trailproof.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.config.ApiKey;
import io.trailproof.core.json.JsonRejection;
import io.trailproof.core.json.StrictJson;
import io.trailproof.core.timestamp.TimestampCheck;
import io.trailproof.core.timestamp.TimestampFailure;
import io.trailproof.core.timestamp.TimestampRecord;
import io.trailproof.timestamp.LatestVerification;
import io.trailproof.timestamp.TimestampRefusal;
import io.trailproof.timestamp.TimestampService;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;

import java.util.Iterator;
import java.util.Optional;

/** {@code POST /v1/timestamp}, {@code GET /v1/timestamps}, {@code GET /v1/timestamps/verify} (src/site/timestamps.md). */
final class TimestampEndpoints {

    private final TimestampService timestamps;
    private final RequestBodies bodies;

    TimestampEndpoints(TimestampService timestamps, RequestBodies bodies) {
        this.timestamps = timestamps;
        this.bodies = bodies;
    }

    void register(Router router) {
        router.add("POST", "/v1/timestamp", ApiKey.Role.ADMIN, (ex, p) -> stamp(ex))
                .get("/v1/timestamps", (ex, p) -> list(ex))
                .get("/v1/timestamps/verify", (ex, p) -> verify(ex));
    }

    private void stamp(HttpServerExchange ex) throws Exception {
        String tsaUrl = tsaUrl(ex);
        TimestampRecord record;
        try {
            record = timestamps.stamp(tsaUrl);
        } catch (TimestampRefusal e) {
            int status = switch (e.reason()) {
                case BAD_TSA_URL -> 400;
                case EMPTY_LOG -> 409;
                case TSA_FAILED -> 502;
            };
            throw new ApiException(status, e.getMessage() + (status == 502 ? "; nothing was stored" : ""));
        }
        ex.getResponseHeaders().put(Headers.LOCATION, "/v1/timestamps/verify?id=" + record.id());
        Responses.json(ex, 201, record.toJson());
    }

    /** The body is {@code {}} or {@code {"tsa_url": "..."}}; no body at all means {@code {}}. */
    private String tsaUrl(HttpServerExchange ex) throws Exception {
        boolean noBody = ex.getRequestContentLength() == 0
                || (ex.getRequestContentLength() < 0 && !ex.getRequestHeaders().contains(Headers.TRANSFER_ENCODING));
        if (noBody) {
            return null;
        }
        byte[] body = bodies.read(ex);
        if (body.length == 0) {
            return null;
        }
        JsonNode node;
        try {
            node = StrictJson.parse(body, 4);
        } catch (JsonRejection e) {
            throw ApiException.badRequest(e.getMessage());
        }
        if (!node.isObject()) {
            throw ApiException.badRequest("the body must be a JSON object: {} or {\"tsa_url\": \"https://...\"}");
        }
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!name.equals("tsa_url")) {
                throw ApiException.badRequest("unknown field " + Params.shorten(name) + "; the body may only hold tsa_url");
            }
        }
        JsonNode url = node.get("tsa_url");
        if (url == null || url.isNull()) {
            return null;
        }
        if (!url.isTextual() || url.textValue().isBlank()) {
            throw ApiException.badRequest("tsa_url must be a non-empty http or https URL");
        }
        return url.textValue();
    }

    private void list(HttpServerExchange ex) throws Exception {
        Params params = new Params(ex);
        int limit = params.limit();
        long offset = params.offset();
        ArrayNode out = Responses.MAPPER.createArrayNode();
        for (TimestampRecord r : timestamps.newestFirst(offset, limit)) {
            out.add(r.toJson());
        }
        ex.getResponseHeaders().put(new HttpString("X-Total-Count"), Long.toString(timestamps.count()));
        Responses.json(ex, 200, out);
    }

    private void verify(HttpServerExchange ex) throws Exception {
        String id = new Params(ex).optional("id");
        Optional<LatestVerification> result = id == null ? timestamps.verifyLatest() : timestamps.verify(id);
        if (result.isEmpty()) {
            throw ApiException.notFound(id == null ? "nothing has been timestamped yet: POST /v1/timestamp first"
                    : "no timestamp with id " + Params.shorten(id));
        }
        Responses.json(ex, 200, toJson(result.get()));
    }

    static ObjectNode toJson(LatestVerification r) {
        TimestampRecord record = r.record();
        ObjectNode o = Responses.MAPPER.createObjectNode();
        o.put("valid", r.valid());
        o.put("timestamp_id", record.id());
        o.put("merkle_root", record.merkleRoot());
        o.put("tree_size", record.treeSize());
        o.put("tsa", record.tsa());
        o.put("tsa_time", record.timestamp());
        o.put("current_root", r.currentRootHex());
        o.put("current_tree_size", r.currentTreeSize());
        o.put("current_root_matches", r.currentRootMatches());
        o.put("consistent", r.consistent());
        ObjectNode checks = o.putObject("checks");
        for (TimestampCheck c : TimestampCheck.values()) {
            checks.put(c.label(), r.verification().passed(c));
        }
        Optional<TimestampFailure> first = r.verification().firstFailure();
        o.put("error", first.map(TimestampFailure::message).orElse(""));
        r.verification().facts().ifPresent(f -> o.put("tsa_name", f.tsaName()));
        if (first.isPresent()) {
            o.put("check", first.get().check().label());
            o.put("expected", first.get().expected());
            o.put("actual", first.get().actual());
            ArrayNode all = o.putArray("failures");
            for (TimestampFailure f : r.verification().failures()) {
                all.add(f.message());
            }
        }
        return o;
    }
}
