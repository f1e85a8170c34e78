package io.trailproof.core.policy;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The gate form of each rule type (src/site/gates.md): a rule asked whether a <em>proposed</em> event
 * would violate it, given the history of its scope. History arrives one event at a time
 * ({@link GateRule#observe}) and is kept as per-scope state, never as events: a decision costs the
 * same however long the trail is.
 */
final class GateRules {

    private GateRules() {
    }

    /** One rule's state over the history and its judgement of proposals. */
    abstract static class GateRule {
        final String policy;
        final Rule rule;

        GateRule(String policy, Rule rule) {
            this.policy = policy;
            this.rule = rule;
        }

        /** A stored event of the rule's scope that carries its labels (not a service-written one). */
        void observe(PolicyEvent e, ScopeKey scope) {
        }

        /** Why the proposal violates the rule, or null when it does not. */
        abstract String judge(PolicyEvent proposal, ScopeKey scope, GateEvaluator.QueryTest queries);
    }

    static GateRule of(String policy, Rule rule) {
        return switch (rule.definition()) {
            case RuleDefinition.Absence d -> new Absence(policy, rule, d);
            case RuleDefinition.Boundary d -> new GateRule(policy, rule) {
                String judge(PolicyEvent p, ScopeKey s, GateEvaluator.QueryTest q) {
                    return p.actionName() != null && !d.allowed().contains(p.actionName())
                            ? "action " + p.actionName() + " is not one of the allowed actions" : null;
                }
            };
            case RuleDefinition.Rate d -> new Rate(policy, rule, d);
            case RuleDefinition.PatternRule d -> new GateRule(policy, rule) {
                private final String[] path = d.field().split("\\.");

                String judge(PolicyEvent p, ScopeKey s, GateEvaluator.QueryTest q) {
                    String value = p.valueAt(path);
                    if (value == null) {
                        return null;
                    }
                    boolean found = d.pattern().matcher(value).find();
                    if (d.deny() && found) {
                        return d.field() + " contains a match of the denied pattern " + d.pattern().pattern();
                    }
                    return !d.deny() && !found ? d.field() + " has no match of the required pattern "
                            + d.pattern().pattern() : null;
                }
            };
            case RuleDefinition.Temporal d -> new GateRule(policy, rule) {
                String judge(PolicyEvent p, ScopeKey s, GateEvaluator.QueryTest q) {
                    long seconds = Math.floorDiv(p.timestampMicros(), 1_000_000);
                    int hour = (int) (Math.floorMod(seconds, 86_400) / 3600);
                    int weekday = (int) Math.floorMod(Math.floorDiv(seconds, 86_400) + 4, 7);
                    if (!d.hourAllowed(hour)) {
                        return "the time " + Texts.instant(p.timestampMicros()) + " is outside the allowed hours";
                    }
                    return d.dayAllowed(weekday) ? null : "the time " + Texts.instant(p.timestampMicros())
                            + " is on a day not allowed";
                }
            };
            case RuleDefinition.Requires d -> new Requires(policy, rule, d);
            case RuleDefinition.Match d -> new GateRule(policy, rule) {
                String judge(PolicyEvent p, ScopeKey s, GateEvaluator.QueryTest q) {
                    return q.matches(d.query()) ? "the proposal matches " + d.query() : null;
                }
            };
            default -> throw new IllegalArgumentException("a " + rule.type() + " rule cannot judge a proposal");
        };
    }

    /** {@code deny} is refused; with {@code when}, only once a {@code when} event is in the scope. */
    private static final class Absence extends GateRule {
        private final RuleDefinition.Absence def;
        private final Set<ScopeKey> armed = new HashSet<>();

        Absence(String policy, Rule rule, RuleDefinition.Absence def) {
            super(policy, rule);
            this.def = def;
        }

        @Override
        void observe(PolicyEvent e, ScopeKey scope) {
            if (def.when() != null && def.when().equals(e.actionName())) {
                armed.add(scope);
            }
        }

        @Override
        String judge(PolicyEvent p, ScopeKey scope, GateEvaluator.QueryTest q) {
            if (!def.denies(p.actionName())) {
                return null;
            }
            if (def.when() == null) {
                return p.actionName() + " must never occur";
            }
            return armed.contains(scope) ? p.actionName() + " must not occur after " + def.when() + " in "
                    + scope.describe() : null;
        }
    }

    /** A proposal of {@code for} needs a {@code requires} event earlier in its scope. */
    private static final class Requires extends GateRule {
        private final RuleDefinition.Requires def;
        private final Set<ScopeKey> met = new HashSet<>();

        Requires(String policy, Rule rule, RuleDefinition.Requires def) {
            super(policy, rule);
            this.def = def;
        }

        @Override
        void observe(PolicyEvent e, ScopeKey scope) {
            if (def.requires().equals(e.actionName())) {
                met.add(scope);
            }
        }

        @Override
        String judge(PolicyEvent p, ScopeKey scope, GateEvaluator.QueryTest q) {
            return def.forAction().equals(p.actionName()) && !met.contains(scope)
                    ? def.forAction() + " requires an earlier " + def.requires() + " in " + scope.describe() : null;
        }
    }

    /**
     * The proposal would be one event too many in its window: windows of {@code per} aligned to the
     * epoch, by {@code timestamp}; per scope, counts of the {@value RateCheck#KEPT_WINDOWS} newest
     * windows with events (as the trail check keeps them).
     */
    private static final class Rate extends GateRule {
        private final RuleDefinition.Rate def;
        private final long perMicros;
        private final Map<ScopeKey, TreeMap<Long, long[]>> counts = new HashMap<>();

        Rate(String policy, Rule rule, RuleDefinition.Rate def) {
            super(policy, rule);
            this.def = def;
            this.perMicros = def.perMillis() * 1000;
        }

        @Override
        void observe(PolicyEvent e, ScopeKey scope) {
            TreeMap<Long, long[]> windows = counts.computeIfAbsent(scope, k -> new TreeMap<>());
            windows.computeIfAbsent(Math.floorDiv(e.timestampMicros(), perMicros), w -> new long[1])[0]++;
            if (windows.size() > RateCheck.KEPT_WINDOWS) {
                windows.pollFirstEntry();
            }
        }

        @Override
        String judge(PolicyEvent p, ScopeKey scope, GateEvaluator.QueryTest q) {
            TreeMap<Long, long[]> windows = counts.get(scope);
            long window = Math.floorDiv(p.timestampMicros(), perMicros);
            long[] count = windows == null ? null : windows.get(window);
            long n = count == null ? 0 : count[0];
            return n + 1 > def.max() ? "it would be event " + (n + 1) + " of " + scope.describe() + " in the "
                    + Texts.duration(def.perMillis()) + " window from " + Texts.instant(window * perMicros)
                    + "; at most " + def.max() + " are allowed" : null;
        }
    }
}
