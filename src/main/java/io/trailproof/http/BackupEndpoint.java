package io.trailproof.http;

import io.trailproof.backup.OnlineBackup;
import io.trailproof.backup.Snapshot;
import io.trailproof.config.ApiKey;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;
import org.xnio.IoUtils;

import org.xnio.channels.Channels;
import org.xnio.channels.StreamSinkChannel;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.concurrent.Semaphore;

/**
 * {@code GET /v1/admin/backup} (role {@code admin}, src/site/operations.md): a consistent tar of the running
 * service, streamed ({@link OnlineBackup}). One backup runs at a time; another is a 503 with
 * {@code Retry-After}, since two at once would only share the disk and both take longer.
 */
final class BackupEndpoint {

    private static final System.Logger LOG = System.getLogger(BackupEndpoint.class.getName());
    private static final DateTimeFormatter FILE_TIME = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
            .withZone(ZoneOffset.UTC);

    private final OnlineBackup backup;
    private final Semaphore oneAtATime = new Semaphore(1);

    BackupEndpoint(OnlineBackup backup) {
        this.backup = backup;
    }

    void register(Router router) {
        router.add("GET", "/v1/admin/backup", ApiKey.Role.ADMIN, (ex, p) -> backup(ex));
    }

    private void backup(HttpServerExchange ex) throws Exception {
        if (!oneAtATime.tryAcquire()) {
            throw new ApiException(503, "a backup is already running; try again when it has finished",
                    Map.of("Retry-After", "30"));
        }
        // Held until the tar is sent: an erasure's rewrite of the log waits (src/site/erasure.md#crash-safety-of-an-erasure).
        try (var files = backup.holdFiles()) {
            Snapshot snapshot;
            try {
                snapshot = backup.capture();
            } catch (UnsupportedOperationException e) {
                throw new ApiException(503, "this service cannot be backed up online: " + e.getMessage(),
                        Map.of("Retry-After", "3600"));
            }
            var m = snapshot.manifest();
            ex.setStatusCode(200);
            ex.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/x-tar");
            ex.getResponseHeaders().put(Headers.CONTENT_LENGTH, snapshot.archiveBytes());
            ex.getResponseHeaders().put(Headers.CACHE_CONTROL, "no-store");
            ex.getResponseHeaders().put(Headers.CONTENT_DISPOSITION, "attachment; filename=\"trailproof-backup-"
                    + m.treeSize() + "-" + FILE_TIME.format(m.createdAt()) + ".tar\"");
            ex.getResponseHeaders().put(HttpString.tryFromString("X-Tree-Size"), m.treeSize());
            ex.getResponseHeaders().put(HttpString.tryFromString("X-Root"), m.root());
            // Straight to the response channel: the segment files go out with sendfile where the
            // platform has it (no copy through the heap); tar headers and padding are written between.
            StreamSinkChannel channel = ex.getResponseChannel();
            try {
                snapshot.writeTo(new Snapshot.Sink() {
                    @Override
                    public void write(byte[] b, int off, int len) throws IOException {
                        Channels.writeBlocking(channel, ByteBuffer.wrap(b, off, len));
                    }

                    @Override
                    public void transfer(FileChannel file, long position, long count) throws IOException {
                        Channels.transferBlocking(channel, file, position, count);
                    }
                });
                channel.shutdownWrites();
                Channels.flushBlocking(channel);
            } catch (IOException | RuntimeException e) {
                // The answer has started: cutting the connection leaves the client a truncated tar,
                // which a restore refuses, rather than one that looks complete.
                LOG.log(System.Logger.Level.WARNING, "backup failed after it started: " + e);
                IoUtils.safeClose(ex.getConnection());
            }
        } finally {
            oneAtATime.release();
        }
    }
}
