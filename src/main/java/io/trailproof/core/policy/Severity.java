package io.trailproof.core.policy;

import java.util.Locale;

/** What a violated rule does to the check (src/site/redaction.md): {@code fail} fails it, {@code warn} is only reported. */
public enum Severity {
    FAIL, WARN;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
