package io.trailproof;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tests wait for observable state through {@code io.trailproof.testing.Await}, never with a fixed
 * sleep or a loop of their own against a deadline: a sleep is either too short on a loaded machine
 * (a flaky test) or too long everywhere (a slow one). {@code Await} is the one place that pauses, with
 * a name for each kind of pause; a loop that is load for a fixed run says so on its line.
 */
class TestSourcesTest {

    private static final Path TESTS = Path.of("src/test/java");
    private static final Path AWAIT = TESTS.resolve("io/trailproof/testing/Await.java");

    /** A sleep of any kind: Thread.sleep, TimeUnit.X.sleep, or a call of a sleep method of one's own. */
    private static final Pattern SLEEP = Pattern.compile("\\bThread\\.sleep\\(|\\bTimeUnit\\.[A-Z]+\\.sleep\\(|\\.sleep\\(");

    /** A loop whose condition reads the clock or a deadline. */
    private static final Pattern DEADLINE_LOOP = Pattern.compile(
            "\\b(while|for)\\s*\\(.*(nanoTime\\(\\)|currentTimeMillis\\(\\)|\\bdeadline\\b|Instant\\.now\\(\\))");

    /** What a loop that is load for a fixed run (not a wait) says on its line. */
    private static final String FIXED_RUN = "load for a fixed run";

    @Test
    void noTestSourceSleepsOrWaitsAgainstADeadlineOutsideAwait() throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(TESTS)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                if (file.equals(AWAIT) || file.endsWith("TestSourcesTest.java")) {
                    continue;
                }
                List<String> lines = Files.readAllLines(file);
                for (int i = 0; i < lines.size(); i++) {
                    String line = lines.get(i);
                    String code = line.trim();
                    if (code.startsWith("//") || code.startsWith("*") || code.startsWith("/*")) {
                        continue;
                    }
                    if (SLEEP.matcher(line).find()
                            || DEADLINE_LOOP.matcher(line).find() && !line.contains(FIXED_RUN)) {
                        found.add(TESTS.relativize(file) + ":" + (i + 1) + ": " + code);
                    }
                }
            }
        }
        assertThat(found).as("sleeps and deadline loops outside Await: wait with Await.until for what the test "
                + "needs, or name the pause with Await.pace or Await.nothingHappensWithin").isEmpty();
    }

    @Test
    void theScanSeesWhatItLooksFor() {
        assertThat(SLEEP.matcher("        Thread.sleep(200);").find()).isTrue();
        assertThat(SLEEP.matcher("TimeUnit.MILLISECONDS.sleep(5);").find()).isTrue();
        assertThat(DEADLINE_LOOP.matcher("while (System.nanoTime() < deadline) {").find()).isTrue();
        assertThat(DEADLINE_LOOP.matcher("for (int i = 0; System.currentTimeMillis() < end; i++) {").find()).isTrue();
        assertThat(DEADLINE_LOOP.matcher("while (it.hasNext()) {").find()).isFalse();
        assertThat(SLEEP.matcher("Await.pace(Duration.ofMillis(100), \"a trickle\");").find()).isFalse();
    }
}
