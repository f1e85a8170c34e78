package io.trailproof.cli;

import io.trailproof.backup.BackupManifest;
import io.trailproof.backup.Restore;
import io.trailproof.backup.RestoreRefused;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.http.HttpResponse;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.Callable;

/**
 * {@code trailproof backup -o FILE.tar}: streams a consistent backup of a running server
 * ({@code GET /v1/admin/backup}, CONTRACT 17) to a file, with a progress bar. The archive is checked
 * as it arrives (manifest, sizes, every SHA-256), written beside the target, forced to disk and
 * only then renamed to it, so a failed backup never leaves a file under the name that looks complete.
 */
@Command(name = "backup", mixinStandardHelpOptions = true,
        description = "Download a consistent backup (a tar) of a running server; needs an admin key.")
final class BackupCommand implements Callable<Integer> {

    @Mixin
    ClientOptions options;

    @Option(names = {"-o", "--output"}, required = true, paramLabel = "FILE.tar", description = "Where to write the backup.")
    Path output;

    @Override
    public Integer call() throws Exception {
        HttpResponse<InputStream> response;
        try {
            response = options.client().stream("/v1/admin/backup");
        } catch (ServerClient.ClientException e) {
            System.err.println("trailproof: " + e.getMessage());
            return 1;
        }
        if (response.statusCode() != 200) {
            byte[] body;
            try (InputStream in = response.body()) {
                body = in.readAllBytes();
            }
            System.err.println("trailproof: " + new ServerClient.Answer(response.statusCode(), body, false).error());
            return response.statusCode() == 400 ? Main.BAD_USAGE : 1;
        }
        long total = response.headers().firstValueAsLong("Content-Length").orElse(0);
        Path target = output.toAbsolutePath();
        Path part = target.resolveSibling("." + target.getFileName() + ".part");
        ProgressBar bar = ProgressBar.onStderr("KiB", total / 1024);
        BackupManifest manifest;
        long bytes;
        try (InputStream body = response.body();
             FileChannel file = FileChannel.open(part, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                     StandardOpenOption.TRUNCATE_EXISTING)) {
            Tee tee = new Tee(body, Channels.newOutputStream(file));
            manifest = Restore.check(tee, done -> bar.update(done / 1024));
            bytes = tee.count;
            if (total > 0 && bytes != total) {
                throw new RestoreRefused("the transfer ended after " + bytes + " of " + total + " bytes");
            }
            file.force(true);
        } catch (RestoreRefused | IOException e) {
            Files.deleteIfExists(part);
            System.err.println();
            String why = e instanceof RestoreRefused ? e.getMessage() : e.toString();
            System.err.println("trailproof: the backup failed (" + why + "); nothing was written to " + output
                    + ". Try again.");
            return 1;
        }
        bar.finish(bytes / 1024);
        String headerRoot = response.headers().firstValue("X-Root").orElse(null);
        if (headerRoot != null && !headerRoot.equals(manifest.root())) {
            Files.deleteIfExists(part);
            System.err.println("trailproof: the server named root " + headerRoot + " but the backup's manifest says "
                    + manifest.root() + "; nothing was written to " + output);
            return 1;
        }
        try {
            Files.move(part, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            Files.deleteIfExists(part);
            System.err.println("trailproof: could not rename the backup to " + output + " (" + e + "); nothing was written");
            return 1;
        }
        if (options.json) {
            System.out.println(ServerClient.JSON.createObjectNode().put("file", output.toString())
                    .put("tree_size", manifest.treeSize()).put("root", manifest.root()).put("bytes", bytes)
                    .put("files", manifest.files().size()).put("created_at", manifest.createdAt().toString()));
        } else {
            System.out.println("wrote a backup of tree size " + manifest.treeSize() + " (root " + manifest.root() + ", "
                    + manifest.files().size() + " files, " + bytes + " bytes) to " + output);
            System.out.println("restore it with: trailproof restore " + output + " --data-dir DIR");
        }
        return 0;
    }

    /** Copies everything read through it to {@code copy}, counting. */
    private static final class Tee extends FilterInputStream {
        private final OutputStream copy;
        long count;

        Tee(InputStream in, OutputStream copy) {
            super(in);
            this.copy = copy;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                copy.write(b);
                count++;
            }
            return b;
        }

        @Override
        public int read(byte[] buf, int off, int len) throws IOException {
            int n = super.read(buf, off, len);
            if (n > 0) {
                copy.write(buf, off, n);
                count += n;
            }
            return n;
        }
    }
}
