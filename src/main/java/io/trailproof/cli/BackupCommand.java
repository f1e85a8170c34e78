package io.trailproof.cli;

import io.trailproof.backup.BackupManifest;
import io.trailproof.backup.Restore;
import io.trailproof.backup.RestoreRefused;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;

/**
 * {@code trailproof backup -o FILE.tar}: streams a consistent backup of a running server
 * ({@code GET /v1/admin/backup}, src/site/operations.md) to a file, with a progress bar. The archive is checked
 * as it arrives (manifest, sizes, every SHA-256), written beside the target, forced to disk and
 * only then renamed to it, so a failed backup never leaves a file under the name that looks complete.
 */
final class BackupCommand implements CliCommand {

    static final OptionSpec OUTPUT = OptionSpec.value(ValueType.PATH, "FILE.tar", "Where to write the backup.",
            "-o", "--output").required();

    ClientOptions options;
    Path output;

    /** A connection that sends nothing for this long is given up (the server digests before it answers). */
    private static final Duration STALL = Duration.ofMinutes(10);
    private static final long FORCE_EVERY = 16L << 20;

    @Override
    public CommandSpec spec() {
        return ClientOptions.declare(new CommandSpec("backup",
                "Download a consistent backup (a tar) of a running server; needs an admin key.").option(OUTPUT));
    }

    @Override
    public int run(Arguments args, Streams io) throws Exception {
        options = ClientOptions.of(args);
        output = args.path(OUTPUT);
        ServerClient client = options.client();
        Answer response;
        try {
            response = Answer.open(client, "/v1/admin/backup");
        } catch (ServerClient.ClientException e) {
            System.err.println("trailproof: " + e.getMessage());
            return 1;
        }
        try (Answer answer = response) {
            return download(answer);
        }
    }

    private int download(Answer response) throws Exception {
        if (response.status() != 200) {
            byte[] body = response.errorBody();
            System.err.println("trailproof: " + new ServerClient.Answer(response.status(), body, false).error());
            return response.status() == 400 ? Main.BAD_USAGE : 1;
        }
        long total = contentLength(response);
        Path target = output.toAbsolutePath();
        Path part = target.resolveSibling("." + target.getFileName() + ".part");
        ProgressBar bar = ProgressBar.onStderr("KiB", total / 1024);
        BackupManifest manifest;
        long bytes;
        try (FileChannel file = FileChannel.open(part, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            // The file is written by this thread, the archive checked (manifest, sizes, every SHA-256)
            // on a second one over the same bytes: see CheckedCopy.
            // Written pages are forced in the background every FORCE_EVERY bytes, so the force below
            // waits for the last stretch only.
            CheckedCopy.Result<BackupManifest> copied = CheckedCopy.copy(response.body(), file, FORCE_EVERY,
                    in -> Restore.check(in, done -> bar.update(done / 1024)));
            manifest = copied.checked();
            bytes = copied.bytes();
            if (total > 0 && bytes != total) {
                throw new RestoreRefused("the transfer ended after " + bytes + " of " + total + " bytes");
            }
            file.force(true);
        } catch (RestoreRefused | IOException | ExecutionException e) {
            Throwable cause = e instanceof ExecutionException x && x.getCause() != null ? x.getCause() : e;
            Files.deleteIfExists(part);
            System.err.println();
            String why = cause instanceof RestoreRefused ? cause.getMessage() : cause.toString();
            System.err.println("trailproof: the backup failed (" + why + "); nothing was written to " + output
                    + ". Try again.");
            return 1;
        }
        bar.finish(bytes / 1024);
        String headerRoot = response.header("X-Root").orElse(null);
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

    private static long contentLength(Answer response) {
        try {
            return response.header("Content-Length").map(v -> Long.parseLong(v.trim())).orElse(0L);
        } catch (NumberFormatException e) {
            return 0;   // no length to compare with; the archive's own end marker still decides
        }
    }

    /**
     * The backup's answer: over a plain socket for {@code http://} servers ({@link PlainHttpGet}, the
     * fast path), through the JDK's client for anything else (e.g. {@code https://} to a proxy).
     */
    private interface Answer extends AutoCloseable {
        int status();

        Optional<String> header(String name);

        ReadableByteChannel body() throws IOException;

        byte[] errorBody() throws IOException;

        @Override
        void close() throws IOException;

        static Answer open(ServerClient client, String path) throws ServerClient.ClientException {
            if ("http".equalsIgnoreCase(client.base().getScheme())) {
                try {
                    PlainHttpGet get = PlainHttpGet.open(client.base(), path, client.apiKey(), Duration.ofSeconds(10), STALL);
                    return new Answer() {
                        public int status() {
                            return get.status();
                        }

                        public Optional<String> header(String name) {
                            return get.header(name);
                        }

                        public ReadableByteChannel body() throws IOException {
                            return get.body();
                        }

                        public byte[] errorBody() throws IOException {
                            return get.errorBody();
                        }

                        public void close() throws IOException {
                            get.close();
                        }
                    };
                } catch (IOException e) {
                    throw client.transport(e);
                }
            }
            HttpResponse<InputStream> r = client.stream(path);
            return new Answer() {
                public int status() {
                    return r.statusCode();
                }

                public Optional<String> header(String name) {
                    return r.headers().firstValue(name);
                }

                public ReadableByteChannel body() {
                    return Channels.newChannel(r.body());
                }

                public byte[] errorBody() throws IOException {
                    try (InputStream in = r.body()) {
                        return in.readAllBytes();
                    }
                }

                public void close() throws IOException {
                    r.body().close();
                }
            };
        }
    }
}
