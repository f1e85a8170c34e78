package io.trailproof.shipping;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The spool directory (src/site/mcp-proxy.md#delivery-and-the-spool): batches not yet acknowledged by the service,
 * one JSON file per batch, {@code {"idempotency_key": "...", "events": [...]}}, named so that names
 * sort in the order the batches were made.
 *
 * <p>Every batch is written here before it is sent and deleted once the service acknowledged it, so
 * a batch survives the service being down, the proxy being killed mid-send and the machine
 * restarting. Several proxies (and Python SDK clients) may share the directory: a file is sent only
 * by whoever holds its lock (an advisory lock on the open file, released when the process ends), so
 * a live proxy's batches are not sent by another process while it still owns them; a file left by a
 * process that ended is free for anyone. A batch sent twice anyway (a crash between the service's
 * answer and the delete) is stored once: it goes again under its own {@code Idempotency-Key}.
 *
 * <p><b>Durability.</b> {@link #write} returns after the file's content and its name are on disk
 * (fsync of the file, then of the directory); a crash before that leaves at most a hidden temporary
 * file, which a later drain removes.
 */
public final class Spool {

    static final String SUFFIX = ".json";
    static final String REJECTED_SUFFIX = ".rejected";
    private static final String TEMP_SUFFIX = ".tmp";
    /** How a batch file starts, and what comes between its key and its events, as the mapper writes them. */
    private static final byte[] KEY_MEMBER = "{\"idempotency_key\":".getBytes(StandardCharsets.UTF_8);
    private static final byte[] EVENTS_MEMBER = ",\"events\":[".getBytes(StandardCharsets.UTF_8);

    private final Path dir;
    private final ObjectMapper json;

    public Spool(Path dir, ObjectMapper json) {
        this.dir = dir;
        this.json = json;
    }

    Path dir() {
        return dir;
    }

    /** A spooled batch held under its lock; {@link #close} releases the lock and leaves the file. */
    final class Entry implements AutoCloseable {
        private final Path path;
        private final FileChannel channel;
        private final FileLock lock;
        final String idempotencyKey;
        final List<JsonNode> events;

        private Entry(Path path, FileChannel channel, FileLock lock, String idempotencyKey, List<JsonNode> events) {
            this.path = path;
            this.channel = channel;
            this.lock = lock;
            this.idempotencyKey = idempotencyKey;
            this.events = events;
        }

        Path path() {
            return path;
        }

        /** The request body: the events as a JSON array, the same bytes on every try. */
        byte[] body() throws IOException {
            ArrayNode array = json.createArrayNode();
            events.forEach(array::add);
            return json.writeValueAsBytes(array);
        }

        /** Whether the batch is on disk (false: held in memory only, because the spool could not be written). */
        boolean spooled() {
            return path != null;
        }

        /** The batch was acknowledged: the file goes (while still locked, so nobody sends it meanwhile). */
        void delete() throws IOException {
            if (path != null) {
                Files.deleteIfExists(path);
            }
            close();
        }

        /** The service refuses this batch for good: set aside as {@code .rejected}, never sent again. */
        void reject() throws IOException {
            if (path != null) {
                Files.move(path, path.resolveSibling(path.getFileName() + REJECTED_SUFFIX),
                        StandardCopyOption.ATOMIC_MOVE);
            }
            close();
        }

        @Override
        public void close() throws IOException {
            if (path == null) {
                return;
            }
            try {
                if (lock.isValid()) {
                    lock.release();
                }
            } finally {
                channel.close();
            }
        }
    }

    /** A batch held in memory only, for when the spool directory cannot be written. */
    Entry inMemory(String idempotencyKey, List<? extends JsonNode> events) {
        return new Entry(null, null, null, idempotencyKey, List.copyOf(events));
    }

    /**
     * Writes a batch under {@code name} (without suffix) and returns it locked.
     *
     * @throws IOException when the directory cannot be created or written
     */
    Entry write(String name, String idempotencyKey, List<? extends JsonNode> events) throws IOException {
        ObjectNode doc = json.createObjectNode();
        doc.put("idempotency_key", idempotencyKey);
        ArrayNode array = doc.putArray("events");
        events.forEach(array::add);
        return store(name, idempotencyKey, json.writeValueAsBytes(doc));
    }

    /**
     * {@link #write(String, String, List)} of events already serialized by this spool's mapper, one
     * array each ({@code encoded}): the same file, byte for byte, without serializing them again.
     */
    Entry writeEncoded(String name, String idempotencyKey, List<byte[]> encoded) throws IOException {
        byte[] key = json.writeValueAsBytes(idempotencyKey);
        int length = KEY_MEMBER.length + key.length + EVENTS_MEMBER.length + 2 + Math.max(0, encoded.size() - 1);
        for (byte[] event : encoded) {
            length += event.length;
        }
        ByteBuffer doc = ByteBuffer.allocate(length);
        doc.put(KEY_MEMBER).put(key).put(EVENTS_MEMBER);
        for (int i = 0; i < encoded.size(); i++) {
            if (i > 0) {
                doc.put((byte) ',');
            }
            doc.put(encoded.get(i));
        }
        doc.put((byte) ']').put((byte) '}');
        return store(name, idempotencyKey, doc.array());
    }

    /** Writes a batch file's bytes under {@code name} and returns it locked. */
    private Entry store(String name, String idempotencyKey, byte[] bytes) throws IOException {
        Files.createDirectories(dir);
        Path temp = dir.resolve("." + name + SUFFIX + TEMP_SUFFIX);
        Path target = dir.resolve(name + SUFFIX);
        FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                StandardOpenOption.READ);
        try {
            FileLock lock = channel.lock();
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            channel.force(true);
            // The lock belongs to the open file, not the name: it stays held across the rename.
            move(temp, target);
            forceDirectory();
            // The events as read back from the file: what a later drain reads, so that every try of this
            // batch sends the same body under its key.
            List<JsonNode> written = new ArrayList<>();
            json.readTree(bytes).get("events").forEach(written::add);
            return new Entry(target, channel, lock, idempotencyKey, written);
        } catch (IOException | RuntimeException e) {
            channel.close();
            Files.deleteIfExists(temp);
            throw e;
        }
    }

    /**
     * The names of the spooled batches in the order they were made (oldest first), locked or not;
     * removes temporary files that a crashed writer left (their lock is free).
     */
    List<Path> list() throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<Path> batches = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                String name = f.getFileName().toString();
                if (name.startsWith(".") && name.endsWith(TEMP_SUFFIX)) {
                    removeAbandoned(f);
                } else if (name.endsWith(SUFFIX) && !name.startsWith(".")) {
                    batches.add(f);
                }
            }
        }
        Collections.sort(batches);
        return batches;
    }

    /**
     * Takes a spooled batch for sending: null when another owner holds it (or it is gone). A file
     * that is not a batch this version can read is set aside as {@code .rejected} and reported by
     * the exception.
     */
    Entry claim(Path path) throws IOException {
        FileChannel channel;
        try {
            channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        } catch (NoSuchFileException gone) {
            return null;
        }
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException ours) {
            lock = null; // this process holds it: it is being sent right now
        }
        if (lock == null || !Files.exists(path)) {
            if (lock != null) {
                lock.release();
            }
            channel.close();
            return null;
        }
        try {
            ByteBuffer content = ByteBuffer.allocate(Math.toIntExact(channel.size()));
            while (content.hasRemaining() && channel.read(content, content.position()) >= 0) {
                // read until full
            }
            JsonNode doc = json.readTree(content.array());
            Entry entry = parse(path, channel, lock, doc);
            if (entry == null) {
                new Entry(path, channel, lock, null, List.of()).reject();
                throw new IOException(path + " is not a spooled batch; set aside as " + path.getFileName()
                        + REJECTED_SUFFIX);
            }
            return entry;
        } catch (IOException | RuntimeException e) {
            if (channel.isOpen()) {
                lock.release();
                channel.close();
            }
            throw e;
        }
    }

    /**
     * A batch file: {@code {"idempotency_key": K, "events": [...]}}, or a bare array of events (then
     * the key is derived from the file's name, the same on every try).
     */
    private Entry parse(Path path, FileChannel channel, FileLock lock, JsonNode doc) {
        JsonNode events;
        String key;
        if (doc != null && doc.isObject() && doc.path("events").isArray()) {
            events = doc.get("events");
            key = doc.path("idempotency_key").isTextual() ? doc.get("idempotency_key").asText() : fileKey(path);
        } else if (doc != null && doc.isArray()) {
            events = doc;
            key = fileKey(path);
        } else {
            return null;
        }
        List<JsonNode> list = new ArrayList<>();
        events.forEach(list::add);
        return new Entry(path, channel, lock, key, list);
    }

    private static String fileKey(Path path) {
        String name = path.getFileName().toString();
        return "trailproof-spool:" + EventContent.sha256(name.getBytes(StandardCharsets.UTF_8))
                .substring(0, 32);
    }

    private void removeAbandoned(Path temp) {
        try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
            FileLock lock = channel.tryLock();
            if (lock != null) {
                Files.deleteIfExists(temp);
                lock.release();
            }
        } catch (IOException | OverlappingFileLockException e) {
            // still being written, or already gone
        }
    }

    private static void move(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to);
        }
    }

    private void forceDirectory() {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException e) {
            // Some platforms cannot open a directory; the file's own content is already forced.
        }
    }
}
