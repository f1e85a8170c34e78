package io.trailproof.timestamp;

import io.trailproof.testing.TestPki;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The trust anchors read at the start (configured PEM files) and on first use (the JDK's store). */
class TrustAnchorsTest {

    @TempDir
    Path dir;

    @Test
    void theAnchorsOnFirstUseAreTheJdksFollowedByTheConfiguredOnesEveryTime() throws Exception {
        Path pem = TestPki.create("anchors").writeRootPem(dir.resolve("root.pem"));
        Supplier<List<X509Certificate>> onUse = TrustAnchors.jdkPlusOnFirstUse(List.of(pem));
        List<X509Certificate> first = onUse.get();
        assertEquals(TrustAnchors.jdkPlus(List.of(pem)), first);
        assertEquals(TrustAnchors.pem(pem).getFirst(), first.getLast());
        assertSame(first, onUse.get(), "the JDK's store is read once");
    }

    @Test
    void aMissingOrEmptyFileIsRefusedWhenConfiguredNotOnFirstUse() throws Exception {
        IOException missing = assertThrows(IOException.class,
                () -> TrustAnchors.jdkPlusOnFirstUse(List.of(dir.resolve("absent.pem"))));
        assertTrue(missing.getMessage().contains("absent.pem"), missing.getMessage());
        Path empty = Files.writeString(dir.resolve("empty.pem"), "no certificate here\n");
        IOException none = assertThrows(IOException.class, () -> TrustAnchors.jdkPlusOnFirstUse(List.of(empty)));
        assertTrue(none.getMessage().contains("empty.pem"), none.getMessage());
    }
}
