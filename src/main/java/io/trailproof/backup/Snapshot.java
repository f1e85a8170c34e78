package io.trailproof.backup;

import io.trailproof.store.FilePrefix;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;

/**
 * A backup fixed by {@link OnlineBackup#capture}: its manifest and the files it names, ready to be
 * written as a tar any number of times (the prefixes it names never change).
 */
public final class Snapshot {

    /** One file: on disk (a prefix) or, for small state files, in memory. */
    record Item(String name, FilePrefix prefix, byte[] content, String sha256) {
        long size() {
            return prefix != null ? prefix.bytes() : content.length;
        }
    }

    private final BackupManifest manifest;
    private final byte[] manifestJson;
    private final List<Item> items;

    Snapshot(BackupManifest manifest, List<Item> items) {
        this.manifest = manifest;
        this.manifestJson = manifest.toJson();
        this.items = List.copyOf(items);
    }

    public BackupManifest manifest() {
        return manifest;
    }

    /** Bytes of the tar {@link #writeTo} writes (for {@code Content-Length} and progress bars). */
    public long archiveBytes() {
        long[] sizes = new long[items.size() + 1];
        sizes[0] = manifestJson.length;
        for (int i = 0; i < items.size(); i++) {
            sizes[i + 1] = items.get(i).size();
        }
        return TarWriter.archiveSize(sizes);
    }

    /** Where {@link #writeTo(Sink)} writes: bytes, and ranges of files it may send without copying them. */
    public interface Sink {
        void write(byte[] b, int off, int len) throws IOException;

        /** Writes bytes {@code [position, position + count)} of {@code file} (e.g. with sendfile). */
        void transfer(FileChannel file, long position, long count) throws IOException;
    }

    /**
     * Writes the tar: {@code MANIFEST.json}, then every file in manifest order, then the end
     * marker. Streams; does not close {@code out}. On an exception the tar is incomplete, and a
     * restore of it is refused.
     */
    public void writeTo(OutputStream out) throws IOException {
        writeTo(new Sink() {
            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                out.write(b, off, len);
            }

            @Override
            public void transfer(FileChannel file, long position, long count) throws IOException {
                OnlineBackup.copyRange(file, position, position + count, (buf, len) -> out.write(buf, 0, len));
            }
        });
        out.flush();
    }

    /**
     * {@link #writeTo(OutputStream)} into a sink that may send file ranges without copying them. The
     * tar's own bytes (headers, padding, the manifest, the small state files) are gathered and handed
     * to {@link Sink#write} in one piece before each file range, so a backup costs the sink a few
     * calls per file whatever the tar's layout.
     */
    public void writeTo(Sink sink) throws IOException {
        Gathered headers = new Gathered(sink);
        TarWriter tar = new TarWriter(headers, manifest.createdAt().getEpochSecond());
        tar.entry(BackupManifest.NAME, manifestJson, 0644);
        for (Item item : items) {
            tar.startEntry(item.name(), item.size(), BackupLayout.mode(item.name()));
            if (item.prefix() != null) {
                try (FileChannel file = FileChannel.open(item.prefix().file(), StandardOpenOption.READ)) {
                    if (file.size() < item.size()) {
                        throw new IOException(item.prefix().file() + " is shorter than the " + item.size()
                                + " bytes the backup fixed: the log was changed under the running service");
                    }
                    headers.flush();
                    sink.transfer(file, 0, item.size());
                }
                tar.wroteDirectly(item.size());
            } else {
                tar.write(item.content(), 0, item.content().length);
            }
            tar.closeEntry();
        }
        tar.finish();
        headers.flush();
    }

    /** The tar's own bytes, held until a file range or the end (at most a few blocks between two files). */
    private static final class Gathered extends OutputStream {
        private final Sink sink;
        private byte[] buf = new byte[8 * TarWriter.BLOCK];
        private int len;

        Gathered(Sink sink) {
            this.sink = sink;
        }

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int n) {
            if (len + n > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(2 * buf.length, len + n));
            }
            System.arraycopy(b, off, buf, len, n);
            len += n;
        }

        @Override
        public void flush() throws IOException {
            if (len > 0) {
                sink.write(buf, 0, len);
                len = 0;
            }
        }
    }
}
