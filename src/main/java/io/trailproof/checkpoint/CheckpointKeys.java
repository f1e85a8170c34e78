package io.trailproof.checkpoint;

import io.trailproof.core.note.NoteSigner;
import io.trailproof.core.note.TlogRejection;
import io.trailproof.store.AtomicFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * The log's identity (src/site/checkpoints.md): its origin and its Ed25519 signing key, whose name is the origin.
 *
 * <p>Either the key comes from {@code checkpoint.signing-key} (a file in Go's private-key form), or
 * it is made at the first start and kept in {@code DIR/keys/checkpoint.key}, readable by the owner
 * only, so the origin is kept with it. A configured {@code checkpoint.origin} must then be the key's
 * name: a different origin is a different log, and rotating the key means starting one (src/site/checkpoints.md#identity-and-keys
 * says how).
 */
public final class CheckpointKeys {
    /** The key file under the data directory. */
    public static final String KEY_FILE = "keys/checkpoint.key";
    /** Prefix of the origin made when none is configured. */
    public static final String DEFAULT_ORIGIN_PREFIX = "localhost/trailproof/";

    private CheckpointKeys() {}

    /**
     * The signing key: read from {@code configuredKey} if present, else from the data directory,
     * else made now (with {@code configuredOrigin} or a random default origin) and stored there.
     *
     * @throws IllegalArgumentException when a key file is malformed or its name is not {@code configuredOrigin}
     */
    public static NoteSigner loadOrCreate(Path dataDir, Optional<Path> configuredKey, Optional<String> configuredOrigin,
                                          RandomGenerator random) throws IOException {
        Path file = configuredKey.orElse(dataDir.resolve(KEY_FILE));
        if (configuredKey.isPresent() && !Files.isReadable(file)) {
            throw new IllegalArgumentException("checkpoint.signing-key " + file + " is not a readable file");
        }
        NoteSigner signer;
        if (Files.exists(file) || configuredKey.isPresent()) {
            signer = read(file);
        } else {
            String origin = configuredOrigin.orElseGet(() -> DEFAULT_ORIGIN_PREFIX + randomHex(random, 4));
            byte[] seed = new byte[32];
            random.nextBytes(seed);
            signer = NoteSigner.of(origin, seed);
            write(file, signer);
        }
        if (configuredOrigin.isPresent() && !configuredOrigin.get().equals(signer.name())) {
            throw new IllegalArgumentException("checkpoint.origin is " + configuredOrigin.get() + " but the signing key "
                    + file + " is named " + signer.name() + ": the origin is the key's name. A new origin is a new "
                    + "log; to rotate, move the key file away (keep it: old checkpoints verify with it) and restart");
        }
        return signer;
    }

    private static NoteSigner read(Path file) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8).strip();
        try {
            return NoteSigner.parse(text);
        } catch (TlogRejection e) {
            throw new IllegalArgumentException("the checkpoint signing key " + file + " is not usable: " + e.getMessage());
        }
    }

    // Owner-only: the directory 0700 and the file 0600 where the file system has POSIX permissions.
    private static void write(Path file, NoteSigner signer) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        boolean posix = Files.getFileAttributeView(dir, PosixFileAttributeView.class) != null;
        if (posix) {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        }
        AtomicFile.write(file, (signer.privateKeyText() + "\n").getBytes(StandardCharsets.UTF_8));
        if (posix) {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        }
    }

    private static String randomHex(RandomGenerator random, int bytes) {
        byte[] b = new byte[bytes];
        random.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }
}
