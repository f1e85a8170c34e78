package io.trailproof.core.policy;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import com.google.re2j.Pattern;

/** What a rule checks, one record per rule type of src/site/redaction.md. Values are validated by {@link PolicyParser}. */
public sealed interface RuleDefinition {

    /** The rule type as documents and answers name it. */
    String type();

    /** Each {@code when} event needs an {@code expect} event after it in scope within {@code withinMillis} (0: any time later). */
    record Sequence(String when, String expect, long withinMillis) implements RuleDefinition {
        public String type() {
            return "sequence";
        }
    }

    /**
     * {@code deny} never happens; with {@code when} (nullable), never after a {@code when} in scope.
     * A {@code deny} ending in {@code *} names every action that starts with what comes before it
     * ({@code delete_*}).
     */
    record Absence(String deny, String when) implements RuleDefinition {
        public String type() {
            return "absence";
        }

        /** True when {@code name} is an action this rule denies. */
        public boolean denies(String name) {
            if (name == null) {
                return false;
            }
            return deny.endsWith("*") ? name.startsWith(deny.substring(0, deny.length() - 1)) : deny.equals(name);
        }
    }

    /** No {@code action_name} outside {@code allowed} occurs. */
    record Boundary(Set<String> allowed) implements RuleDefinition {
        public Boundary {
            allowed = Set.copyOf(allowed);
        }

        public String type() {
            return "boundary";
        }
    }

    /** Each name in {@code required} occurs at least once in every scope. */
    record Presence(List<String> required) implements RuleDefinition {
        public Presence {
            required = List.copyOf(required);
        }

        public String type() {
            return "presence";
        }
    }

    /** At most {@code max} events per window of {@code perMillis} (aligned to the epoch, by timestamp) per scope. */
    record Rate(long perMillis, long max) implements RuleDefinition {
        public String type() {
            return "rate";
        }
    }

    /**
     * The value at {@code field} (a dotted path) must contain a match of {@code pattern} when
     * {@code deny} is false, and must not when it is true.
     */
    record PatternRule(String field, Pattern pattern, boolean deny) implements RuleDefinition {
        public String type() {
            return "pattern";
        }
    }

    /**
     * Events only in the hours {@code [startHour, endHour)} UTC (wrapping past midnight when start &gt;
     * end; both -1 when not restricted) and on {@code days} (bit d set for day d, 0 = Sunday).
     */
    record Temporal(int startHour, int endHour, int days) implements RuleDefinition {
        public static final int EVERY_DAY = 0x7f;

        public String type() {
            return "temporal";
        }

        public boolean hourAllowed(int hour) {
            if (startHour < 0) {
                return true;
            }
            return startHour < endHour ? hour >= startHour && hour < endHour : hour >= startHour || hour < endHour;
        }

        public boolean dayAllowed(int day) {
            return (days & (1 << day)) != 0;
        }
    }

    /** A proposal (or an event) of {@code forAction} needs an earlier {@code requires} event in its scope. */
    record Requires(String forAction, String requires) implements RuleDefinition {
        public String type() {
            return "requires";
        }
    }

    /**
     * The search query {@code query} (src/site/search.md syntax) matches the proposed event on its own.
     * Decides proposals only: the check of a stored trail skips it (the core has no search engine;
     * the gate compiles the query).
     */
    record Match(String query) implements RuleDefinition {
        public String type() {
            return "match";
        }
    }

    /** One of the built-in policies of src/site/redaction.md, run when no document is given. */
    record Builtin(BuiltinKind kind) implements RuleDefinition {
        public String type() {
            return "builtin";
        }
    }

    enum BuiltinKind {
        CHAIN_INTEGRITY, EVENT_COMPLETENESS, SESSION_HEALTH, ERROR_RATE, DURATION_OUTLIERS, GATE_COMPLIANCE;

        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}
