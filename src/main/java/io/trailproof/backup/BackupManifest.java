package io.trailproof.backup;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.json.JsonRejection;
import io.trailproof.core.json.StrictJson;

import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * {@code MANIFEST.json}, the first entry of a backup (src/site/operations.md): the tree size and root the log
 * in the backup gives, when the backup was taken, and every other entry with its size and SHA-256.
 *
 * <pre>
 * {"format": "trailproof-backup/1", "created_at": "2026-11-25T19:00:00Z", "tree_size": 1234,
 *  "root": "&lt;64 hex&gt;", "files": [{"name": "log/00000000000000000000.seg", "size": 4096,
 *  "sha256": "&lt;64 hex&gt;"}, ...], "topic_offset": 1233}
 * </pre>
 *
 * {@code topic_offset} is present in the backup of a cluster node only: the offset of the last record
 * of the Kafka topic the log in the backup holds; a node restored from it consumes the topic from the
 * next offset (src/site/cluster.md#joining-from-a-backup).
 *
 * @param topicOffset the last topic offset the log covers (cluster mode), or null
 */
public record BackupManifest(Instant createdAt, long treeSize, String root, List<FileEntry> files, Long topicOffset) {

    /** The entry name of the manifest itself. */
    public static final String NAME = "MANIFEST.json";
    public static final String FORMAT = "trailproof-backup/1";
    /** A manifest larger than this is refused before it is parsed. */
    public static final int MAX_BYTES = 16 << 20;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HexFormat HEX = HexFormat.of();
    private static final Set<String> MEMBERS = Set.of("format", "created_at", "tree_size", "root", "files",
            "topic_offset");
    private static final Set<String> FILE_MEMBERS = Set.of("name", "size", "sha256");

    /** One file of the backup: its entry name, size in bytes and SHA-256 (lower-case hex). */
    public record FileEntry(String name, long size, String sha256) {
    }

    public BackupManifest {
        files = List.copyOf(files);
    }

    /** The manifest of a backup of a single node (no topic offset). */
    public BackupManifest(Instant createdAt, long treeSize, String root, List<FileEntry> files) {
        this(createdAt, treeSize, root, files, null);
    }

    public byte[] toJson() {
        ObjectNode o = JSON.createObjectNode();
        o.put("format", FORMAT);
        o.put("created_at", createdAt.toString());
        o.put("tree_size", treeSize);
        o.put("root", root);
        ArrayNode list = o.putArray("files");
        for (FileEntry f : files) {
            list.addObject().put("name", f.name()).put("size", f.size()).put("sha256", f.sha256());
        }
        if (topicOffset != null) {
            o.put("topic_offset", topicOffset);
        }
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(o);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Reads a manifest, strictly: the members above and no others, every file name one a backup
     * may hold ({@link BackupLayout#allowed}) and named once, sizes not negative, digests and root
     * 64 lower-case hex digits.
     *
     * @throws IllegalArgumentException with a sentence naming what is wrong
     */
    public static BackupManifest parse(byte[] bytes) {
        JsonNode node;
        try {
            node = StrictJson.parse(bytes, 8);
        } catch (JsonRejection e) {
            throw new IllegalArgumentException("MANIFEST.json is not valid JSON: " + e.getMessage());
        }
        if (!node.isObject()) {
            throw new IllegalArgumentException("MANIFEST.json is not a JSON object");
        }
        onlyMembers(node, MEMBERS, "MANIFEST.json");
        if (!FORMAT.equals(node.path("format").asText(null))) {
            throw new IllegalArgumentException("MANIFEST.json is not of format " + FORMAT + " (format: "
                    + node.path("format") + ")");
        }
        Instant created;
        try {
            created = Instant.parse(text(node, "created_at"));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("MANIFEST.json: created_at is not an RFC 3339 UTC time");
        }
        long treeSize = count(node, "tree_size", "MANIFEST.json");
        String root = hex(node, "root", "MANIFEST.json");
        JsonNode files = node.get("files");
        if (files == null || !files.isArray()) {
            throw new IllegalArgumentException("MANIFEST.json: files must be an array");
        }
        List<FileEntry> entries = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (JsonNode f : files) {
            if (!f.isObject()) {
                throw new IllegalArgumentException("MANIFEST.json: each file must be an object");
            }
            onlyMembers(f, FILE_MEMBERS, "a file of MANIFEST.json");
            String name = text(f, "name");
            if (!BackupLayout.allowed(name)) {
                throw new IllegalArgumentException("MANIFEST.json names " + TarReader.printable(name)
                        + ", which is not a file a backup holds");
            }
            if (!seen.add(name)) {
                throw new IllegalArgumentException("MANIFEST.json names " + name + " twice");
            }
            entries.add(new FileEntry(name, count(f, "size", name), hex(f, "sha256", name)));
        }
        Long topicOffset = node.has("topic_offset") ? count(node, "topic_offset", "MANIFEST.json") : null;
        return new BackupManifest(created, treeSize, root, entries, topicOffset);
    }

    private static void onlyMembers(JsonNode node, Set<String> allowed, String where) {
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!allowed.contains(name)) {
                throw new IllegalArgumentException(where + " has an unknown member " + TarReader.printable(name));
            }
        }
    }

    private static String text(JsonNode node, String name) {
        JsonNode v = node.get(name);
        if (v == null || !v.isTextual()) {
            throw new IllegalArgumentException("MANIFEST.json: " + name + " must be a string");
        }
        return v.asText();
    }

    private static long count(JsonNode node, String name, String where) {
        JsonNode v = node.get(name);
        if (v == null || !v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < 0) {
            throw new IllegalArgumentException(where + ": " + name + " must be a non-negative integer");
        }
        return v.asLong();
    }

    private static String hex(JsonNode node, String name, String where) {
        String v = text(node, name);
        if (v.length() != 64 || !v.chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            throw new IllegalArgumentException(where + ": " + name + " must be 64 lower-case hex digits");
        }
        return v;
    }

    /** The root as bytes. */
    public byte[] rootBytes() {
        return HEX.parseHex(root);
    }
}
