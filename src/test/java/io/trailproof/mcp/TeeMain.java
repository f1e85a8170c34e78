package io.trailproof.mcp;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;

/**
 * Stands between an MCP client and the process it starts, writing down the bytes of both directions
 * as the client sees them: {@code RECORD_DIR/client-out} (what the client wrote) and
 * {@code RECORD_DIR/client-in} (what it read). Arguments: {@code RECORD_DIR COMMAND [ARGS...]}.
 */
public final class TeeMain {

    private TeeMain() {
    }

    public static void main(String[] args) throws Exception {
        Path record = Path.of(args[0]);
        List<String> command = Arrays.asList(args).subList(1, args.length);
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        Thread in = new Thread(() -> copy(new FileInputStream(FileDescriptor.in), p.getOutputStream(),
                record.resolve("client-out"), true));
        in.setDaemon(true);
        in.start();
        copy(p.getInputStream(), new FileOutputStream(FileDescriptor.out), record.resolve("client-in"), false);
        System.exit(p.waitFor());
    }

    private static void copy(InputStream from, OutputStream to, Path file, boolean close) {
        byte[] buffer = new byte[8192];
        try (OutputStream log = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
            int n;
            while ((n = from.read(buffer)) >= 0) {
                log.write(buffer, 0, n);
                log.flush();
                to.write(buffer, 0, n);
                to.flush();
            }
            if (close) {
                to.close();
            }
        } catch (IOException e) {
            // the other side ended
        }
    }
}
