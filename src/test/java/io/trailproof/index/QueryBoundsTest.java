package io.trailproof.index;

import org.apache.lucene.util.automaton.RegExp;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The bounds of src/site/search.md#bounds, checked before the parser recurses or an automaton is built,
 * on a thread with a small stack (as a worker thread has) so a missed bound shows as a stack overflow.
 */
class QueryBoundsTest {

    private static String parse(String q) throws Exception {
        return RequestQuery.parse(q, new EventQueryParser(new IndexAnalyzer())).toString();
    }

    /** Runs {@code body} on a thread with a 256 KiB stack and rethrows what it threw. */
    private static void onSmallStack(ThrowingRunnable body) throws Throwable {
        Throwable[] thrown = new Throwable[1];
        Thread t = new Thread(null, () -> {
            try {
                body.run();
            } catch (Throwable e) {
                thrown[0] = e;
            }
        }, "small-stack", 256 * 1024);
        t.start();
        t.join();
        if (thrown[0] != null) {
            throw thrown[0];
        }
    }

    private interface ThrowingRunnable {
        void run() throws Throwable;
    }

    @Test
    void nestingUpTo64LevelsParsesAndDeeperIsRefusedBeforeTheParserRecurses() throws Throwable {
        assertThat(parse("(".repeat(64) + "a" + ")".repeat(64))).contains("a");
        for (int depth : new int[] {65, 3_000, 4_999}) {
            String deep = "(".repeat(depth) + "a" + ")".repeat(depth);
            onSmallStack(() -> assertThatThrownBy(() -> parse(deep)).isInstanceOf(BadQueryException.class)
                    .hasMessageContaining("more than 64 levels deep").hasMessageContaining("column 65"));
        }
        // Unclosed, and in a field, and after a lexical error further on: still refused by depth.
        onSmallStack(() -> assertThatThrownBy(() -> parse("input:" + "(".repeat(4_000) + "a"))
                .hasMessageContaining("more than 64 levels deep"));
        onSmallStack(() -> assertThatThrownBy(() -> parse("(".repeat(4_000) + "a \"unclosed"))
                .hasMessageContaining("more than 64 levels deep"));
    }

    @Test
    void parenthesesInsidePhrasesRangesRegexpsAndEscapesDoNotCount() throws Exception {
        String many = "(".repeat(100);
        assertThat(parse("\"" + many + " a\"")).isNotEmpty();
        assertThat(parse("\\(".repeat(100) + "a")).isNotEmpty();
        assertThat(parse("input:[\"" + many + "\" TO z]")).isNotEmpty();
        assertThatThrownBy(() -> parse("/" + many + "a" + ")".repeat(100) + "/"))
                .hasMessageContaining("nests groups more than 64 levels deep");
        // ")" hidden in a phrase cannot lower the count.
        assertThatThrownBy(() -> parse("( \")\" ".repeat(70) + "a" + ")".repeat(70)))
                .hasMessageContaining("more than 64 levels deep");
    }

    @Test
    void regexNestingSkipsClassesStringsIntervalsAndEscapes() {
        assertThat(QueryBounds.regexNesting("((a)(b))")).isEqualTo(2);
        assertThat(QueryBounds.regexNesting("[(((]\"(((\"<1-9>\\(\\(a")).isZero();
        // A ")" inside a class cannot lower the count.
        assertThat(QueryBounds.regexNesting("([)]".repeat(70))).isEqualTo(70);
    }

    @Test
    void estimatesAutomatonStatesFromTheExpression() {
        assertThat(QueryBounds.states(new RegExp("abc", RegExp.ALL))).isBetween(3L, 8L);
        assertThat(QueryBounds.states(new RegExp(".{0,32000}", RegExp.ALL))).isGreaterThan(32_000L);
        assertThat(QueryBounds.states(new RegExp("(a{1000}){1000}", RegExp.ALL))).isGreaterThan(1_000_000L);
        assertThat(QueryBounds.states(new RegExp("((((a{60000}){60000}){60000}){60000}){60000}", RegExp.ALL)))
                .isEqualTo(Long.MAX_VALUE);
        assertThat(QueryBounds.states(new RegExp("[0-9]{1,3}(\\.[0-9]{1,3}){3}", RegExp.ALL))).isLessThan(100L);
    }

    @Test
    void largeRegularExpressionsAreRefusedBeforeTheirAutomatonIsBuilt() throws Throwable {
        onSmallStack(() -> {
            long start = System.nanoTime();
            assertThatThrownBy(() -> parse("/.{0,32000}/")).isInstanceOf(BadQueryException.class)
                    .hasMessageContaining("too large to run").hasMessageContaining("the limit is 2000");
            assertThatThrownBy(() -> parse("input:/(ab){9999}/")).hasMessageContaining("on input is too large");
            assertThatThrownBy(() -> parse("/" + "a".repeat(1_001) + "/")).hasMessageContaining("1001 characters long");
            assertThatThrownBy(() -> parse("/" + "(".repeat(400) + "a" + ")".repeat(400) + "/"))
                    .hasMessageContaining("nests groups");
            // Refused by measuring, not by building: nowhere near the 30 s the first one took to build.
            assertThat((System.nanoTime() - start) / 1_000_000_000).isLessThan(10);
        });
        assertThat(parse("/[a-z]{1,30}@[a-z]{1,30}/")).contains("input:/[a-z]{1,30}@[a-z]{1,30}/");
        assertThat(parse("/" + "a".repeat(1_000) + "/")).isNotEmpty();
        assertThatThrownBy(() -> parse("/(a|b)*a(a|b){24}/")).hasMessageContaining("too complex");
    }
}
