package io.trailproof.erasure;

import io.trailproof.testing.LaunchedJvm;
import io.trailproof.testing.RunOrder;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A retention pass's memory does not grow with the number of events it erases
 * (src/site/erasure.md#memory): one pass over {@value #EVENTS} events runs in a JVM of
 * {@value #HEAP} heap, in which holding every target (their log indexes, ids and new payloads at once,
 * as a pass did before it streamed them in chunks) runs out of memory.
 */
@Order(RunOrder.LONGEST)
class RetentionMemoryIT {

    static final int EVENTS = 40_000;
    static final String HEAP = "-Xmx40m";

    @TempDir
    Path tmp;

    @Test
    void aPassOverManyEventsRunsInASmallHeap() throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(LaunchedJvm.HELPER);   // the serial collector: the heap limit is the whole bound
        cmd.addAll(List.of(HEAP, "-XX:+ExitOnOutOfMemoryError", "-cp", System.getProperty("java.class.path"),
                RetentionMemoryMain.class.getName(), tmp.resolve("data").toString(), Integer.toString(EVENTS)));
        Path out = tmp.resolve("out");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        assertThat(p.waitFor(10, TimeUnit.MINUTES)).isTrue();
        String output = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(output).isZero();
        assertThat(output).contains("erased " + EVENTS + ", found afterwards 0");
    }
}
