package io.trailproof.core.policy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Decides proposals with the gate rules of a policy document (src/site/gates.md): the rules that
 * carry an {@code effect} are each asked whether the proposed event would violate them given the
 * stored history of their scope; the decision is the strongest effect among those that fire
 * ({@code deny} over {@code ask} over {@code allow}), the first such rule in document order naming
 * it, and the default effect when none fires.
 *
 * <p>History is fed in log order with {@link #observe}: every stored event except the ones the
 * service writes about gates ({@code DECISION}, {@code APPROVAL}, {@code GATE_VIOLATION}), which the
 * caller leaves out. It is kept as per-scope state (scopes that saw a name, per-window counts), so a
 * decision's cost does not grow with the trail. Thread-safe: {@link #observe} and {@link #decide}
 * exclude each other.
 */
public final class GateEvaluator {

    /** Whether the proposal matches a search query (a {@code match} rule); supplied per proposal by the caller. */
    @FunctionalInterface
    public interface QueryTest {
        boolean matches(String query);
    }

    /** A decision: its effect, and the rule that made it with its reason (policy and rule null for the default). */
    public record Verdict(Effect effect, String policy, String rule, String reason) {
    }

    private final List<GateRules.GateRule> rules = new ArrayList<>();
    private final Effect defaultEffect;
    /** The verdict when no rule fires: the same for every proposal. */
    private final Verdict byDefault;
    private final ScopeKey.Cache keys = new ScopeKey.Cache();
    private final Set<String> queries = new HashSet<>();

    public GateEvaluator(List<Policy> policies, Effect defaultEffect) {
        this.defaultEffect = defaultEffect;
        this.byDefault = new Verdict(defaultEffect, null, null, "no rule of the gate policy fired; the default is "
                + defaultEffect.wireName());
        for (Policy p : policies) {
            for (Rule r : p.rules()) {
                if (r.effect() != null) {
                    rules.add(GateRules.of(p.name(), r));
                    if (r.definition() instanceof RuleDefinition.Match m) {
                        queries.add(m.query());
                    }
                }
            }
        }
    }

    /** The queries of the {@code match} rules, for the caller to compile once. */
    public Set<String> queries() {
        return Set.copyOf(queries);
    }

    /** The number of gate rules (rules with an effect). */
    public int size() {
        return rules.size();
    }

    /** One stored event of the history, in log order (never a {@code DECISION}, {@code APPROVAL} or {@code GATE_VIOLATION}). */
    public synchronized void observe(PolicyEvent e) {
        for (GateRules.GateRule r : rules) {
            if (r.rule.labelFilter().isEmpty() || e.hasLabels(r.rule.labelFilter())) {
                r.observe(e, keys.of(e, r.rule.scope()));
            }
        }
    }

    /** The decision on {@code proposal} given the history observed so far. */
    public synchronized Verdict decide(PolicyEvent proposal, QueryTest queries) {
        GateRules.GateRule strongest = null;
        Effect effect = null;
        String why = null;
        for (GateRules.GateRule r : rules) {
            if (!r.rule.labelFilter().isEmpty() && !proposal.hasLabels(r.rule.labelFilter())) {
                continue;
            }
            if (!r.rule.effect().strongerThan(effect)) {
                continue; // cannot change the decision
            }
            String found = r.judge(proposal, keys.of(proposal, r.rule.scope()), queries);
            if (found != null) {
                strongest = r;
                effect = r.rule.effect();
                why = found;
                if (effect == Effect.DENY) {
                    break;
                }
            }
        }
        if (strongest == null) {
            return byDefault;
        }
        String reason = strongest.rule.reason() != null ? strongest.rule.reason() : why;
        return new Verdict(effect, strongest.policy, strongest.rule.name(), reason);
    }
}
