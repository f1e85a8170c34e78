package io.trailproof.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trailproof.testing.LaunchedJvm;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DataDirLockTest {
    @TempDir
    Path tmp;

    @Test
    void secondAcquireInSameJvmFailsUntilClosed() throws Exception {
        Path dir = tmp.resolve("data");
        DataDirLock first = DataDirLock.acquire(dir);
        assertThat(Files.readString(dir.resolve("lock")).strip())
                .isEqualTo(Long.toString(ProcessHandle.current().pid()));
        assertThatThrownBy(() -> DataDirLock.acquire(dir))
                .isInstanceOf(DataDirInUseException.class)
                .hasMessageContaining("data directory " + dir + " is in use by another trailproof process");
        // the failed attempt must not have released the first lock
        assertThatThrownBy(() -> DataDirLock.acquire(dir)).isInstanceOf(DataDirInUseException.class);
        first.close();
        try (DataDirLock again = DataDirLock.acquire(dir)) {
            assertThat(again.directory()).isEqualTo(dir);
        }
    }

    @Test
    void otherProcessIsRefusedWithHolderPid() throws Exception {
        Path dir = tmp.resolve("data");
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(LaunchedJvm.HELPER);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), LockHolder.class.getName(), dir.toString()));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            assertThat(out.readLine()).isEqualTo("locked");
            assertThatThrownBy(() -> DataDirLock.acquire(dir))
                    .isInstanceOf(DataDirInUseException.class)
                    .hasMessage("data directory " + dir + " is in use by another trailproof process (pid "
                            + child.pid() + ")");
        } finally {
            child.getOutputStream().close();   // the holder exits when its stdin closes
            assertThat(child.waitFor(20, TimeUnit.SECONDS)).isTrue();
        }
        try (DataDirLock lock = DataDirLock.acquire(dir)) {
            assertThat(lock).isNotNull();
        }
    }

    /** Child process for the test above: holds the lock until stdin closes. */
    public static final class LockHolder {
        public static void main(String[] args) throws Exception {
            try (DataDirLock lock = DataDirLock.acquire(Path.of(args[0]))) {
                System.out.println("locked");
                System.out.flush();
                while (System.in.read() >= 0) {
                    // wait
                }
            }
        }
    }
}
