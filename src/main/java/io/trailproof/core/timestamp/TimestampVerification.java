package io.trailproof.core.timestamp;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The outcome of verifying a timestamp: each check that ran, passed or failed, the evidence of
 * every failure, and what the token states (null when the token could not be read at all).
 * Immutable; {@link #withFailure} and {@link #withPassed} return new results.
 */
public final class TimestampVerification {

    private final TokenFacts facts;
    private final Map<TimestampCheck, Boolean> results;
    private final List<TimestampFailure> failures;

    TimestampVerification(TokenFacts facts, Map<TimestampCheck, Boolean> results, List<TimestampFailure> failures) {
        this.facts = facts;
        this.results = results.isEmpty() ? new EnumMap<>(TimestampCheck.class) : new EnumMap<>(results);
        List<TimestampFailure> sorted = new ArrayList<>(failures);
        sorted.sort(Comparator.comparing(TimestampFailure::check));
        this.failures = List.copyOf(sorted);
    }

    public Optional<TokenFacts> facts() {
        return Optional.ofNullable(facts);
    }

    /** True when the check ran and passed. */
    public boolean passed(TimestampCheck check) {
        return Boolean.TRUE.equals(results.get(check));
    }

    /** True when the check ran. */
    public boolean ran(TimestampCheck check) {
        return results.containsKey(check);
    }

    /** True when every one of {@code checks} ran and passed. */
    public boolean valid(TimestampCheck... checks) {
        for (TimestampCheck c : checks) {
            if (!passed(c)) {
                return false;
            }
        }
        return true;
    }

    /** True when all four checks of src/site/timestamps.md#verification ran and passed. */
    public boolean valid() {
        return valid(TimestampCheck.values());
    }

    /** Every failure, in check order. */
    public List<TimestampFailure> failures() {
        return failures;
    }

    /** The first failure in check order, the one an {@code error} message names. */
    public Optional<TimestampFailure> firstFailure() {
        return failures.stream().findFirst();
    }

    /** This result with {@code failure} added; its check counts as failed. */
    public TimestampVerification withFailure(TimestampFailure failure) {
        Map<TimestampCheck, Boolean> r = new EnumMap<>(TimestampCheck.class);
        r.putAll(results);
        r.put(failure.check(), false);
        List<TimestampFailure> f = new ArrayList<>(failures);
        f.add(failure);
        return new TimestampVerification(facts, r, f);
    }

    /** This result with {@code check} marked as run; it passes unless a failure was recorded for it. */
    public TimestampVerification withPassed(TimestampCheck check) {
        if (results.containsKey(check)) {
            return this;
        }
        Map<TimestampCheck, Boolean> r = new EnumMap<>(TimestampCheck.class);
        r.putAll(results);
        r.put(check, true);
        return new TimestampVerification(facts, r, failures);
    }
}
