package io.trailproof.core.redaction;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.IntFunction;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No built-in rule is quadratic (src/site/redaction.md): on texts of near-matches, the characters each rule
 * reads grow in proportion to the text. Measured by counting reads, not by a clock, so the test is
 * exact on any machine: four times the text may cost at most about four times the reads, and never
 * more than a small constant per character.
 */
class LinearTimeTest {

    /** Text that counts how often its characters are read. */
    private static final class CountingText implements CharSequence {
        private final String text;
        long reads;

        CountingText(String text) {
            this.text = text;
        }

        @Override
        public int length() {
            return text.length();
        }

        @Override
        public char charAt(int index) {
            reads++;
            return text.charAt(index);
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            reads += end - start;
            return text.substring(start, end);
        }

        @Override
        public String toString() {
            reads += text.length();
            return text;
        }
    }

    /** Texts of about {@code n} characters that come close to some rule again and again. */
    private static final List<IntFunction<String>> NEAR_MATCHES = List.of(
            n -> "a".repeat(n),
            n -> "1".repeat(n),
            n -> "A".repeat(n),
            n -> repeat("a@", n),
            n -> "x@" + repeat("a.", n - 2),
            n -> repeat("a.", n),
            n -> repeat("4111 ", n),
            n -> repeat("1-", n),
            n -> repeat("1.", n),
            n -> repeat("1.1.1 ", n),
            n -> repeat("DE89 ", n),
            n -> repeat("AKIA", n),
            n -> repeat("ghp_", n),
            n -> "sk-" + "a".repeat(n - 3),
            n -> repeat("Bearer ", n),
            n -> "Bearer " + "a".repeat(n - 7),
            n -> repeat("eyJabcd.", n),
            n -> repeat("+1", n),
            n -> repeat("(415) ", n),
            n -> repeat("AB 12 ", n),
            n -> repeat("123-45-", n));

    private static String repeat(String unit, int n) {
        return unit.repeat(Math.max(1, n / unit.length()));
    }

    private static long reads(RedactionRule rule, String text) {
        CountingText t = new CountingText(text);
        rule.apply(t);
        return t.reads;
    }

    @Test
    void everyBuiltInRuleReadsEachCharacterABoundedNumberOfTimes() {
        // A quadratic rule shows at any length (see theMeasureCatchesAQuadraticPattern): 4,096 and
        // 16,384 characters tell linear from quadratic as well as longer texts, for a quarter of the work.
        int n = 1 << 12;
        for (RedactionRule rule : BuiltInRedactionRules.rules()) {
            for (int g = 0; g < NEAR_MATCHES.size(); g++) {
                String small = NEAR_MATCHES.get(g).apply(n);
                String large = NEAR_MATCHES.get(g).apply(4 * n);
                long a = reads(rule, small);
                long b = reads(rule, large);
                assertThat(b).as("%s on near-match text %d: %d reads for %d chars, %d for %d", rule.name(), g, a,
                        small.length(), b, large.length()).isLessThanOrEqualTo(5 * a + 1000);
                assertThat(b).as("%s on near-match text %d: reads per character", rule.name(), g)
                        .isLessThanOrEqualTo(200L * large.length());
            }
        }
    }

    @Test
    void theMeasureCatchesAQuadraticPattern() {
        // the naive e-mail pattern: every start position in a run of letters scans the rest of the run.
        // Its reads grow with the square of the text at any length (four times the text, sixteen times
        // the reads, at 1,024 characters as at 16,384), so short texts show it as well as long ones.
        RedactionRule naive = new RedactionRule("naive", Pattern.compile("[a-z]+@[a-z]+\\.[a-z]+"));
        long a = reads(naive, "a".repeat(1 << 10));
        long b = reads(naive, "a".repeat(1 << 12));
        assertThat(b).isGreaterThan(10 * a);
    }

    @Test
    void aMebibyteOfNearMatchesIsRedactedAndEverySecretInItFound() {
        StringBuilder text = new StringBuilder();
        int secrets = 0;
        while (text.length() < (1 << 20)) {
            text.append("a@b 4111 1111 1111 1112 1.2.3 AKIA ");
            if (text.length() % 7 == 0) {
                text.append("bob@example.com ");
                secrets++;
            }
        }
        String out = text.toString();
        int found = 0;
        for (RedactionRule r : Redactor.withBuiltIns(List.of()).rules()) {
            RedactionRule.Applied a = r.apply(out);
            out = a.text();
            found += a.count();
        }
        assertThat(found).isEqualTo(secrets);
    }
}
