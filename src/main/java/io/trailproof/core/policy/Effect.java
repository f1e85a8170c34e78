package io.trailproof.core.policy;

import java.util.Locale;

/**
 * What a gate rule decides when it fires (src/site/gates.md): the strongest effect among the rules
 * that fire is the decision, {@code deny} over {@code ask} over {@code allow}.
 */
public enum Effect {
    ALLOW, ASK, DENY;

    private final String wireName = name().toLowerCase(Locale.ROOT);

    public String wireName() {
        return wireName;
    }

    /** The effect of that name ({@code allow}, {@code ask}, {@code deny}), or null for any other text. */
    public static Effect of(String text) {
        return switch (text) {
            case "allow" -> ALLOW;
            case "ask" -> ASK;
            case "deny" -> DENY;
            default -> null;
        };
    }

    /** True when this effect wins over {@code other} (deny &gt; ask &gt; allow). */
    public boolean strongerThan(Effect other) {
        return other == null || ordinal() > other.ordinal();
    }
}
