package io.trailproof.backup;

import io.trailproof.store.FilePrefix;

import java.io.IOException;
import java.io.OutputStream;
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

    /**
     * Writes the tar: {@code MANIFEST.json}, then every file in manifest order, then the end
     * marker. Streams; does not close {@code out}. On an exception the tar is incomplete, and a
     * restore of it is refused.
     */
    public void writeTo(OutputStream out) throws IOException {
        TarWriter tar = new TarWriter(out, manifest.createdAt().getEpochSecond());
        tar.entry(BackupManifest.NAME, manifestJson, 0644);
        for (Item item : items) {
            tar.startEntry(item.name(), item.size(), BackupLayout.mode(item.name()));
            if (item.prefix() != null) {
                OnlineBackup.copyPrefix(item.prefix(), (buf, len) -> tar.write(buf, 0, len));
            } else {
                tar.write(item.content(), 0, item.content().length);
            }
            tar.closeEntry();
        }
        tar.finish();
    }
}
