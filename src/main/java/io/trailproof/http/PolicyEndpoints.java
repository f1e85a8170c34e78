package io.trailproof.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.config.ApiKey;
import io.trailproof.core.json.JsonRejection;
import io.trailproof.core.json.StrictJson;
import io.trailproof.core.policy.BuiltinPolicies;
import io.trailproof.core.policy.Policy;
import io.trailproof.core.policy.PolicyEngine;
import io.trailproof.core.policy.PolicyParser;
import io.trailproof.core.policy.PolicyRejection;
import io.trailproof.ledger.Ledger;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;

import java.time.Instant;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * {@code POST /v1/policy/check} (src/site/redaction.md): runs the built-in policies, or those of the body,
 * over the stored trail. The body is optional: {@code {"policies", "policy", "agent_id", "since",
 * "until"}}, every key optional. Any fault in it (a malformed policy, an unknown key, a bad time)
 * is a 400 and runs nothing.
 */
final class PolicyEndpoints {

    /** A policy document nests body, policies, policy, rules, rule, label_filter; far more is no policy. */
    private static final int MAX_DEPTH = 16;
    private static final Set<String> KEYS = Set.of("policies", "policy", "agent_id", "since", "until");

    private final Ledger ledger;
    private final RequestBodies bodies;

    PolicyEndpoints(Ledger ledger, RequestBodies bodies) {
        this.ledger = ledger;
        this.bodies = bodies;
    }

    void register(Router router) {
        router.add("POST", "/v1/policy/check", ApiKey.Role.READ, (ex, p) -> check(ex));
    }

    private void check(HttpServerExchange ex) throws Exception {
        JsonNode body = body(ex);
        List<Policy> policies;
        String agentId = BodyMembers.text(body, "agent_id");
        Instant since = BodyMembers.time(body, "since");
        Instant until = BodyMembers.time(body, "until");
        try {
            JsonNode given = body.get("policies");
            policies = given == null || given.isNull() ? BuiltinPolicies.all() : PolicyParser.parsePolicies(given);
            policies = PolicyEngine.select(policies, BodyMembers.text(body, "policy"));
        } catch (PolicyRejection e) {
            throw ApiException.badRequest(e.getMessage());
        }
        if (since != null && until != null && since.isAfter(until)) {
            throw ApiException.badRequest("since (" + since + ") is after until (" + until + "); give a window whose "
                    + "start is not after its end");
        }
        if (agentId != null && !ledger.hasAgent(agentId)) {
            // A typo must not read as a clean bill of health.
            throw ApiException.notFound("no agent with id " + Params.shorten(agentId));
        }
        Responses.json(ex, 200, ledger.checkPolicies(policies, agentId, since, until).toJson());
    }

    /** The body as an object; no body at all (or an empty one) is {@code {}}. */
    private JsonNode body(HttpServerExchange ex) throws Exception {
        boolean noBody = ex.getRequestContentLength() == 0
                || (ex.getRequestContentLength() < 0 && !ex.getRequestHeaders().contains(Headers.TRANSFER_ENCODING));
        byte[] bytes = noBody ? new byte[0] : bodies.read(ex);
        if (bytes.length == 0) {
            return Responses.MAPPER.createObjectNode();
        }
        JsonNode node;
        try {
            node = StrictJson.parse(bytes, MAX_DEPTH);
        } catch (JsonRejection e) {
            throw ApiException.badRequest(e.getMessage());
        }
        if (!node.isObject()) {
            throw ApiException.badRequest("the body must be a JSON object such as {\"policy\": \"chain_integrity\"} "
                    + "or {\"policies\": [...]}");
        }
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!KEYS.contains(name)) {
                throw ApiException.badRequest("unknown field " + Params.shorten(name) + "; the body may hold policies, "
                        + "policy, agent_id, since and until");
            }
        }
        return node;
    }
}
