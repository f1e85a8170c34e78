package io.trailproof.index;

import io.trailproof.store.AtomicFile;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The layout of {@code DIR/index/}: generations {@code g000001/}, {@code g000002/}, ... each a whole
 * Lucene index, and the file {@code current} naming the live one. A rebuild writes a new generation
 * and then replaces {@code current} atomically ({@link AtomicFile}), so a crash leaves either the old
 * index or the new one live, never a mixture. A damaged generation is moved to {@code damaged/}
 * (replacing the previous one) for whoever wants to look at it.
 */
public final class IndexDirectory {

    private static final Pattern GENERATION = Pattern.compile("g\\d{6,}");

    private final Path root;

    public IndexDirectory(Path dataDir) {
        this.root = dataDir.resolve("index");
    }

    public Path root() {
        return root;
    }

    /** The live generation, or empty when there is none (a new data directory, or a deleted index). */
    public Optional<Path> current() throws IOException {
        try {
            String name = Files.readString(root.resolve("current"), StandardCharsets.UTF_8).trim();
            if (!GENERATION.matcher(name).matches() || !Files.isDirectory(root.resolve(name))) {
                return Optional.empty();
            }
            return Optional.of(root.resolve(name));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /** Creates a fresh, empty generation directory numbered after every existing one. */
    public Path newGeneration() throws IOException {
        Files.createDirectories(root);
        long max = 0;
        for (Path p : generations()) {
            max = Math.max(max, Long.parseLong(p.getFileName().toString().substring(1)));
        }
        Path dir = root.resolve(String.format("g%06d", max + 1));
        Files.createDirectories(dir);
        AtomicFile.forceDirectory(root);
        return dir;
    }

    /** Makes {@code generation} the live index (atomic and durable on return), then deletes every other generation. */
    public void makeCurrent(Path generation) throws IOException {
        AtomicFile.write(root.resolve("current"), (generation.getFileName().toString() + "\n")
                .getBytes(StandardCharsets.UTF_8));
        for (Path p : generations()) {
            if (!p.equals(generation)) {
                deleteTree(p);
            }
        }
    }

    /** Deletes generations that are not live (left by a rebuild that did not finish). */
    public void deleteStale() throws IOException {
        Optional<Path> live = current();
        for (Path p : generations()) {
            if (live.isEmpty() || !p.equals(live.get())) {
                deleteTree(p);
            }
        }
    }

    /** Moves a damaged generation to {@code damaged/}, replacing an earlier one; returns where it went. */
    /**
     * Deletes a damaged index set aside by {@link #moveAside}: it may hold content an erasure removes
     * (src/site/erasure.md#crash-safety-of-an-erasure), and nothing reads it.
     */
    public void deleteDamaged() throws IOException {
        Path target = root.resolve("damaged");
        if (Files.exists(target)) {
            deleteTree(target);
            AtomicFile.forceDirectory(root);
        }
    }

    public Path moveAside(Path generation) throws IOException {
        Path target = root.resolve("damaged");
        deleteTree(target);
        Files.move(generation, target, StandardCopyOption.ATOMIC_MOVE);
        AtomicFile.forceDirectory(root);
        return target;
    }

    private List<Path> generations() throws IOException {
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(root)) {
            return s.filter(p -> GENERATION.matcher(p.getFileName().toString()).matches() && Files.isDirectory(p))
                    .sorted().toList();
        }
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
