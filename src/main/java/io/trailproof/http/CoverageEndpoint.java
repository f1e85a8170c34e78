package io.trailproof.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.capture.CoverageBuilder;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventTime;
import io.trailproof.ledger.Ledger;
import io.undertow.server.HttpServerExchange;

import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * {@code GET /v1/coverage?agent_id=A[&session_id=S][&since][&until]} (src/site/completeness.md#coverage):
 * reads all of the agent's events (those of the session, when given) in chain order and answers
 * what {@link CoverageBuilder} makes of those with {@code timestamp} in the window, in the light of
 * the rest.
 */
final class CoverageEndpoint {

    private final Ledger ledger;

    CoverageEndpoint(Ledger ledger) {
        this.ledger = ledger;
    }

    void register(Router router) {
        router.get("/v1/coverage", (ex, p) -> coverage(ex));
    }

    private void coverage(HttpServerExchange ex) throws Exception {
        Params params = new Params(ex);
        String agentId = params.required("agent_id");
        String session = params.optional("session_id");
        Instant since = time("since", params.optional("since"));
        Instant until = time("until", params.optional("until"));
        if (since != null && until != null && since.isAfter(until)) {
            throw ApiException.badRequest("since (" + since + ") is after until (" + until + "); give a window whose "
                    + "start is not after its end");
        }
        if (!ledger.hasAgent(agentId)) {
            throw ApiException.notFound("no agent with id " + Params.shorten(agentId));
        }
        // Every event of the agent (and session) is read: those outside the window are not counted,
        // but they fill the window's gaps, repeat its numbers and match its calls across the edges.
        CoverageBuilder coverage = new CoverageBuilder(agentId, since, until);
        for (long index : ledger.agentPositions(agentId)) {
            JsonNode e = Responses.MAPPER.readTree(ledger.payloadAt(index));
            if (session == null || session.equals(e.path(EventFields.SESSION_ID).asText(null))) {
                coverage.add(e);
            }
        }
        Responses.json(ex, 200, coverage.build());
    }

    private static Instant time(String name, String value) throws ApiException {
        if (value == null) {
            return null;
        }
        try {
            return EventTime.parseTimestamp(value);
        } catch (DateTimeParseException e) {
            throw ApiException.badRequest("parameter " + name + " must be an ISO 8601 date-time such as "
                    + "2026-01-31T09:00:00Z, got '" + Params.shorten(value) + "'");
        }
    }
}
