package io.trailproof.gate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trailproof.core.policy.Effect;
import io.trailproof.core.policy.GateEvaluator;
import io.trailproof.core.policy.Policy;
import io.trailproof.core.policy.PolicyParser;
import io.trailproof.core.policy.PolicyRejection;
import io.trailproof.core.policy.Rule;
import io.trailproof.core.policy.RuleDefinition;
import io.trailproof.index.BadQueryException;

import java.io.IOException;
import java.util.List;

/**
 * A gate policy document as stored (src/site/gates.md): the event that holds it, the document, its
 * parsed policies and its compiled {@code match} queries.
 */
record ActivePolicy(long logIndex, String eventId, JsonNode document, List<Policy> policies, ProposalQueries queries,
                    Effect defaultEffect) {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** The member of the policy event's {@code action_input} that holds the document. */
    static final String DOCUMENT = "policy";

    /** A fresh evaluator of this policy's gate rules, with no history yet. */
    GateEvaluator evaluator() {
        return new GateEvaluator(policies, defaultEffect);
    }

    /**
     * Parses and checks a document for use at the gate: the policy rules of src/site/redaction.md, and
     * each {@code match} query compiled.
     *
     * @throws PolicyRejection naming the policy, the rule and the key
     */
    static ParsedDocument parse(JsonNode document) throws PolicyRejection {
        byte[] bytes;
        try {
            bytes = MAPPER.writeValueAsBytes(document);
        } catch (IOException e) {
            throw new PolicyRejection("the policy document cannot be read: " + e.getMessage());
        }
        List<Policy> policies = PolicyParser.parseDocument(bytes);
        for (Policy p : policies) {
            for (Rule r : p.rules()) {
                if (r.definition() instanceof RuleDefinition.Match m) {
                    try {
                        ProposalQueries.check(m.query());
                    } catch (BadQueryException e) {
                        throw new PolicyRejection("policy '" + p.name() + "', rule '" + r.name()
                                + "': key 'query' is not a valid search query: " + e.getMessage());
                    }
                }
            }
        }
        try {
            return new ParsedDocument(policies, ProposalQueries.compile(new GateEvaluator(policies, Effect.ALLOW).queries()));
        } catch (BadQueryException e) {
            throw new PolicyRejection("a match rule's key 'query' is not a valid search query: " + e.getMessage());
        }
    }

    record ParsedDocument(List<Policy> policies, ProposalQueries queries) {
    }

    /** The policy a stored policy event holds, or null when it does not hold a readable one. */
    static ActivePolicy read(byte[] payload, Effect defaultEffect) throws IOException {
        JsonNode event = MAPPER.readTree(payload);
        JsonNode document = event.path("action_input").path(DOCUMENT);
        if (!document.isObject()) {
            return null;
        }
        try {
            ParsedDocument parsed = parse(document);
            return new ActivePolicy(event.path("log_index").asLong(), event.path("id").asText(), document,
                    parsed.policies(), parsed.queries(), defaultEffect);
        } catch (PolicyRejection e) {
            return null;
        }
    }
}
