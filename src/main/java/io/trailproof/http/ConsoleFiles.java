package io.trailproof.http;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.FileSystem;
import java.nio.file.FileSystemAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The investigator console's static files (src/site/console.md), read once from the class path folder
 * {@code ui/} (inside the jar in a distribution, {@code target/classes/ui} in a build) into memory.
 *
 * <p>Why in memory: a request names a key of an immutable map and never a path, so no request can
 * reach a file outside the console whatever it encodes ({@code ..}, {@code %2e%2e}, {@code %2f},
 * backslashes, absolute paths); a folder is never a key, so there is no listing to leak. The
 * files are a few tens of kilobytes. Only files whose extension has a known content type are
 * taken: the browser is never left to guess one (the answers carry {@code nosniff}).
 */
final class ConsoleFiles {

    /** The class path folder the console is packaged under. */
    static final String ROOT = "ui";

    private static final Map<String, String> CONTENT_TYPES = Map.of(
            "html", "text/html; charset=utf-8",
            "js", "text/javascript; charset=utf-8",
            "css", "text/css; charset=utf-8",
            "svg", "image/svg+xml",
            "png", "image/png",
            "ico", "image/x-icon",
            "json", "application/json");

    /** One file: its bytes, content type and a strong validator for conditional requests. */
    record File(byte[] bytes, String contentType, String etag) {
    }

    private final Map<String, File> files;

    private ConsoleFiles(Map<String, File> files) {
        this.files = Map.copyOf(files);
    }

    /** The file at {@code name} (relative to the console root, e.g. {@code js/api.js}), or null. */
    File get(String name) {
        return files.get(name);
    }

    int size() {
        return files.size();
    }

    /**
     * Reads every file under {@code ui/} of the class path of {@code loader}. A build without the
     * console (no {@code ui/index.html}) gives an empty set: the API still runs, {@code /ui/} is a 404.
     */
    static ConsoleFiles load(ClassLoader loader) {
        URL index = loader.getResource(ROOT + "/index.html");
        if (index == null) {
            return new ConsoleFiles(Map.of());
        }
        try {
            URI uri = index.toURI();
            if ("jar".equals(uri.getScheme())) {
                return fromJar(uri);
            }
            return new ConsoleFiles(read(Path.of(uri).getParent()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the console files from " + index, e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot read the console files from " + index, e);
        }
    }

    /**
     * The jar's file system is one per JVM: a server that opened it closes it when done, so two servers
     * starting in one JVM at once (tests, an embedding program) read it one after the other, or one
     * would close it under the other.
     */
    private static synchronized ConsoleFiles fromJar(URI index) throws IOException {
        FileSystem fs;
        boolean opened;
        try {
            fs = FileSystems.newFileSystem(index, Map.of());
            opened = true;
        } catch (FileSystemAlreadyExistsException e) {
            fs = FileSystems.getFileSystem(index);
            opened = false;
        }
        try {
            return new ConsoleFiles(read(fs.provider().getPath(index).getParent()));
        } finally {
            if (opened) {
                fs.close();
            }
        }
    }

    private static Map<String, File> read(Path root) throws IOException {
        Map<String, File> out = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                if (!Files.isRegularFile(p)) {
                    continue;
                }
                String type = contentType(p.getFileName().toString());
                if (type == null) {
                    continue;
                }
                String name = root.relativize(p).toString().replace(p.getFileSystem().getSeparator(), "/");
                byte[] bytes = Files.readAllBytes(p);
                out.put(name, new File(bytes, type, etag(bytes)));
            }
        }
        return out;
    }

    /** The content type for a file name, or null when the console does not serve that kind of file. */
    static String contentType(String fileName) {
        int dot = fileName.lastIndexOf('.');
        return dot < 0 ? null : CONTENT_TYPES.get(fileName.substring(dot + 1).toLowerCase(Locale.ROOT));
    }

    private static String etag(byte[] bytes) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(bytes);
            return "\"" + HexFormat.of().formatHex(digest, 0, 16) + "\"";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
