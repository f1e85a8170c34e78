package io.trailproof.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicFileTest {
    @TempDir
    Path tmp;

    @Test
    void createsAndReplacesWithoutLeavingTemporaryFiles() throws Exception {
        Path target = tmp.resolve("sub/checkpoint.json");
        AtomicFile.write(target, "old".getBytes(StandardCharsets.UTF_8));
        assertThat(Files.readString(target)).isEqualTo("old");
        AtomicFile.write(target, "new content".getBytes(StandardCharsets.UTF_8));
        assertThat(Files.readString(target)).isEqualTo("new content");
        AtomicFile.write(target, new byte[0]);
        assertThat(Files.size(target)).isZero();
        try (var files = Files.list(target.getParent())) {
            assertThat(files).containsExactly(target);
        }
        AtomicFile.forceDirectory(tmp);
    }
}
