package io.trailproof.core.policy;

import java.util.Locale;

/**
 * The events a rule's state is kept over (src/site/redaction.md): each agent's chain, or each session of an
 * agent (an agent's events without {@code session_id} form one session of their own).
 */
public enum Scope {
    AGENT, SESSION;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
