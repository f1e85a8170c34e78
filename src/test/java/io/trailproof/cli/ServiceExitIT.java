package io.trailproof.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.trailproof.testing.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A short command's JVM halts once its output is flushed, but a service's ends through
 * {@code Runtime.exit}, so that the shutdown hooks of the JVM's own options run when it is stopped:
 * here a flight recording started with the server and dumped on exit, which a halt would leave empty.
 * The SIGTERM comes as soon as the server says it listens: it must still stop cleanly and exit 0.
 */
class ServiceExitIT {

    @TempDir
    Path dir;

    @Test
    void aStoppedServerRunsTheJvmsShutdownHooks() throws Exception {
        Path recording = dir.resolve("server.jfr");
        ServerProcess server = ServerProcess.start(dir.resolve("data"), Map.of("TRAILPROOF_JAVA_OPTS",
                "-Xmx256m -XX:StartFlightRecording=filename=" + recording + ",dumponexit=true,settings=default"));
        try {
            assertThat(server.stop()).as("exit code after SIGTERM").isZero();
        } finally {
            server.close();
        }
        assertThat(Files.size(recording)).as("the recording dumped on exit").isGreaterThan(0);
    }
}
