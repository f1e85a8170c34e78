package io.trailproof.http;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** Which request ids a client may set: the documented pattern, checked without a regular expression. */
class RequestIdsTest {

    /** The documented rule (src/site/http-api.md#headers), as a reference. */
    private static final Pattern DOCUMENTED = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    @Test
    void knownAnswers() {
        for (String good : List.of("a", "probe-42.a_b", "A".repeat(64), "0123456789", "._-")) {
            assertThat(RequestIds.isClientId(good)).as(good).isTrue();
        }
        for (String bad : List.of("", "A".repeat(65), "no spaces", "semi;colon", "ünicode", "tab\t", "slash/")) {
            assertThat(RequestIds.isClientId(bad)).as(bad).isFalse();
        }
    }

    @Test
    void agreesWithTheDocumentedPatternOnSeededRandomIds() {
        Random random = new Random(37);
        String alphabet = "aZ09._-/; \u00e9\u0000+~";
        for (int i = 0; i < 20_000; i++) {
            StringBuilder b = new StringBuilder();
            int n = random.nextInt(70);
            for (int j = 0; j < n; j++) {
                b.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            String id = random.nextInt(4) == 0 ? b.toString() : b.toString().replaceAll("[^A-Za-z0-9._-]", "a");
            assertThat(RequestIds.isClientId(id)).as(id).isEqualTo(DOCUMENTED.matcher(id).matches());
        }
    }
}
