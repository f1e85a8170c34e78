package io.trailproof.core.policy;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gate's incremental evaluator against a brute-force reference: on random seeded trails with
 * random gate rules (every type that can judge a proposal, both scopes, label filters, random
 * effects), each event in turn is proposed with every event before it as history, and the decision
 * (effect and rule) must equal the reference's: a rule fires exactly when the after-the-fact check's
 * reference ({@link PolicyEngineReferenceTest#reference}) counts the proposal as a violation over the
 * history and the proposal, and the strongest effect wins, the first such rule in document order
 * naming it.
 */
class GateEvaluatorReferenceTest {

    @Test
    void incrementalDecisionsAgreeWithBruteForce() throws Exception {
        Map<String, Integer> fired = new TreeMap<>();
        for (long seed = 1; seed <= 40; seed++) {
            Random random = new Random(seed);
            Trail trail = new Trail();
            List<PolicyEngineReferenceTest.Ev> events = PolicyEngineReferenceTest.randomTrail(random, trail);
            List<Policy> policies = gatePolicies(random);
            Effect fallback = Effect.values()[random.nextInt(3)];
            GateEvaluator evaluator = new GateEvaluator(policies, fallback);
            PolicyEventReader reader = new PolicyEventReader(Set.of("action_input", "labels"));
            for (int i = 0; i < events.size(); i++) {
                PolicyEventReferenceCase c = expected(policies, events.subList(0, i + 1), fallback);
                GateEvaluator.Verdict actual = evaluator.decide(reader.read(trail.payloads().get(i)), q -> false);
                String what = "seed " + seed + ", proposal " + i;
                assertThat(actual.effect()).as(what).isEqualTo(c.effect());
                assertThat(actual.rule()).as(what).isEqualTo(c.rule());
                if (c.rule() != null) {
                    fired.merge(c.type(), 1, Integer::sum);
                }
                evaluator.observe(reader.read(trail.payloads().get(i)));
            }
        }
        assertThat(fired.keySet()).containsExactlyInAnyOrder("absence", "boundary", "rate", "pattern", "temporal",
                "requires");
    }

    record PolicyEventReferenceCase(Effect effect, String rule, String type) {
    }

    /** The decision on the last of {@code upTo} given the ones before it, by brute force. */
    private static PolicyEventReferenceCase expected(List<Policy> policies, List<PolicyEngineReferenceTest.Ev> upTo,
                                                     Effect fallback) {
        PolicyEngineReferenceTest.Ev proposal = upTo.get(upTo.size() - 1);
        Effect best = null;
        Rule bestRule = null;
        for (Policy p : policies) {
            for (Rule r : p.rules()) {
                if (r.effect() == null) {
                    continue;
                }
                List<PolicyEngineReferenceTest.Ev> seen = upTo.stream().filter(e -> r.labelFilter().isEmpty()
                        || r.labelFilter().get("env").equals(e.env())).toList();
                if (seen.isEmpty() || seen.get(seen.size() - 1) != proposal) {
                    continue; // the proposal does not carry the rule's labels
                }
                if (PolicyEngineReferenceTest.reference(r, seen).contains(proposal.index())
                        && r.effect().strongerThan(best)) {
                    best = r.effect();
                    bestRule = r;
                }
            }
        }
        return bestRule == null ? new PolicyEventReferenceCase(fallback, null, null)
                : new PolicyEventReferenceCase(best, bestRule.name(), bestRule.type());
    }

    /** Random rules of the after-the-fact generator, those a gate can use given a random effect. */
    private static List<Policy> gatePolicies(Random random) throws PolicyRejection {
        List<Rule> rules = new ArrayList<>();
        for (Policy p : PolicyEngineReferenceTest.randomPolicies(random)) {
            for (Rule r : p.rules()) {
                if (r.definition() instanceof RuleDefinition.Sequence || r.definition() instanceof RuleDefinition.Presence
                        || r.definition() instanceof RuleDefinition.Builtin) {
                    continue;
                }
                rules.add(new Rule(r.name(), r.severity(), r.scope(), r.labelFilter(), r.definition(),
                        Effect.values()[random.nextInt(3)], null));
            }
        }
        return rules.isEmpty() ? List.of() : List.of(new Policy("gate", rules));
    }
}
