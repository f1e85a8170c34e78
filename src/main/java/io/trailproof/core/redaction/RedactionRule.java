package io.trailproof.core.redaction;

import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One redaction rule (src/site/redaction.md): a name, a pattern, and optionally a check a match must also pass
 * (a card number's Luhn digit, an IBAN's checksum), so that random digit runs are kept. Each match
 * that passes is replaced by {@code [REDACTED:<name>]}.
 *
 * <p>The built-in patterns run in time linear in the text: each starts with a look-behind that lets
 * a match begin only where a run of its characters begins, and repeats possessively or within a
 * small bound, so no position is scanned more than a bounded number of times.
 *
 * @param extent   how much of a match is the secret: its length for the whole match, a shorter length
 *                 for a leading part (a card number followed by more digits after a space), 0 for none
 * @param mayMatch false only for text the pattern cannot match (a necessary condition, never a
 *                 sufficient one): the pattern is then not run at all
 */
public record RedactionRule(String name, Pattern pattern, Extent extent,
                            Predicate<TextTraits> mayMatch) {

    /** Rule names: what {@code [REDACTED:<name>]} and the {@code redactions} field show. */
    public static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    /** How many leading characters of a match are the secret (0: the match is not one). */
    @FunctionalInterface
    public interface Extent {
        int of(String match);

        Extent WHOLE = String::length;
    }

    public RedactionRule {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("a rule name is 1..64 characters of A-Z a-z 0-9 _ . -, not '" + name + "'");
        }
        if (extent == null) {
            extent = Extent.WHOLE;
        }
        if (mayMatch == null) {
            mayMatch = t -> true;
        }
    }

    public RedactionRule(String name, Pattern pattern) {
        this(name, pattern, Extent.WHOLE, null);
    }

    /** What a match is replaced by. */
    public String replacement() {
        return "[REDACTED:" + name + "]";
    }

    /** The text with every secret replaced, and how many were; the same text when none was. */
    public Applied apply(CharSequence text) {
        Matcher m = pattern.matcher(text);
        StringBuilder out = null;
        int copied = 0;
        int count = 0;
        int from = 0;
        while (from <= text.length() && m.find(from)) {
            int keep = m.end() == m.start() ? 0 : extent.of(m.group());
            if (keep <= 0) {
                from = Math.max(m.end(), m.start() + 1);
                continue;
            }
            if (out == null) {
                out = new StringBuilder(text.length() + 32);
            }
            out.append(text, copied, m.start()).append(replacement());
            copied = m.start() + keep;
            count++;
            from = copied;
        }
        if (out == null) {
            return new Applied(text.toString(), 0);
        }
        return new Applied(out.append(text, copied, text.length()).toString(), count);
    }

    /** A text after one rule, and the number of secrets it replaced. */
    public record Applied(String text, int count) {
    }
}
