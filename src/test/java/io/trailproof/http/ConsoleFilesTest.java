package io.trailproof.http;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

import static org.assertj.core.api.Assertions.assertThat;

/** The console's files are found the same way in a folder (a build) and in a jar (a distribution). */
class ConsoleFilesTest {

    @TempDir
    Path dir;

    private static final String[][] FILES = {
            {"ui/index.html", "<!doctype html>"}, {"ui/js/main.js", "export {};"}, {"ui/console.css", "body{}"},
            {"ui/notes.txt", "not served: no known content type"}, {"other/secret.html", "outside the console"}};

    @Test
    void readsAFolder() throws Exception {
        Path root = dir.resolve("classes");
        for (String[] f : FILES) {
            Files.createDirectories(root.resolve(f[0]).getParent());
            Files.writeString(root.resolve(f[0]), f[1]);
        }
        try (URLClassLoader loader = new URLClassLoader(new URL[] {root.toUri().toURL()}, null)) {
            assertServed(ConsoleFiles.load(loader));
        }
    }

    @Test
    void readsAJar() throws Exception {
        Path jar = dir.resolve("console.jar");
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out)) {
            for (String[] f : FILES) {
                j.putNextEntry(new JarEntry(f[0]));
                j.write(f[1].getBytes(StandardCharsets.UTF_8));
                j.closeEntry();
            }
        }
        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, null)) {
            assertServed(ConsoleFiles.load(loader));
        }
    }

    @Test
    void withoutTheConsoleThereIsNothingToServe() throws Exception {
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, null)) {
            assertThat(ConsoleFiles.load(loader).size()).isZero();
        }
    }

    private static void assertServed(ConsoleFiles files) {
        assertThat(files.size()).isEqualTo(3);
        assertThat(files.get("index.html").contentType()).isEqualTo("text/html; charset=utf-8");
        assertThat(new String(files.get("js/main.js").bytes(), StandardCharsets.UTF_8)).isEqualTo("export {};");
        assertThat(files.get("js/main.js").contentType()).isEqualTo("text/javascript; charset=utf-8");
        assertThat(files.get("console.css").etag()).matches("\"[0-9a-f]{32}\"");
        assertThat(files.get("notes.txt")).isNull();
        assertThat(files.get("../other/secret.html")).isNull();
        assertThat(files.get("js")).isNull();
    }
}
