package io.trailproof.cli;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Constructor;

/**
 * Standard error as the launcher hands it over. Adding the incubating vector module makes the JDK
 * print {@code WARNING: Using incubator modules} on standard error before any code of ours runs, and
 * no option silences it; so {@code bin/trailproof} runs the JVM with its standard error behind a
 * filter that drops that line, and passes the real standard error as another descriptor, named by
 * the system property {@value #FD_PROPERTY}. Writing to that descriptor directly keeps everything
 * Java prints on standard error in order with standard output and complete when the process exits
 * (a filter process may still be passing lines on after the exit); only the JVM's own messages go
 * through the filter. Started any other way, standard error is left as it is.
 */
final class LauncherStderr {

    static final String FD_PROPERTY = "trailproof.stderr-fd";

    private LauncherStderr() {
    }

    /** Points {@link System#err} at the descriptor the launcher named; keeps the filtered stream if that fails. */
    static void adopt() {
        String fd = System.getProperty(FD_PROPERTY);
        if (fd == null) {
            return;
        }
        try {
            // The descriptor must be used as it is (same open file, same offset): reopening
            // /dev/fd/N would truncate a log file or fail on a socket.
            Constructor<FileDescriptor> wrap = FileDescriptor.class.getDeclaredConstructor(int.class);
            wrap.setAccessible(true);
            FileDescriptor inherited = wrap.newInstance(Integer.parseInt(fd));
            System.setErr(new PrintStream(new FileOutputStream(inherited), true, System.err.charset()));
        } catch (ReflectiveOperationException | RuntimeException e) {
            // The filtered standard error still carries every line, only a moment later.
        }
    }
}
