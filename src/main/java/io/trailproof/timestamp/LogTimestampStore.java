package io.trailproof.timestamp;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.trailproof.core.timestamp.TimestampRecord;
import io.trailproof.store.EventLog;
import io.trailproof.store.FilePrefix;
import io.trailproof.store.SegmentLog;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * {@link TimestampStore} on the framed, checksummed, forced segment log (src/site/storage.md), in
 * {@code DIR/timestamps/}: one payload per record, the record's JSON. A torn last record is cut off
 * on open like any uncommitted tail (it was never acknowledged); a damaged earlier one stops the start.
 */
public final class LogTimestampStore implements TimestampStore {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final EventLog log;

    private LogTimestampStore(EventLog log) {
        this.log = log;
    }

    public static LogTimestampStore open(Path dir) throws IOException {
        return new LogTimestampStore(SegmentLog.open(dir));
    }

    @Override
    public void append(TimestampRecord record) throws IOException {
        long index = log.append(List.of(JSON.writeValueAsBytes(record.toJson())));
        log.awaitDurable(index + 1);
    }

    @Override
    public long size() {
        return log.durableSize();
    }

    @Override
    public Optional<TimestampRecord> latest() throws IOException {
        long n = size();
        return n == 0 ? Optional.empty() : Optional.of(read(n - 1));
    }

    @Override
    public List<TimestampRecord> newestFirst(long offset, int limit) throws IOException {
        long n = size();
        List<TimestampRecord> out = new ArrayList<>();
        for (long i = n - 1 - offset; i >= 0 && out.size() < limit; i--) {
            out.add(read(i));
        }
        return out;
    }

    @Override
    public void forEachOldestFirst(Consumer<TimestampRecord> visitor) throws IOException {
        log.scan(0, size(), (index, payload) -> visitor.accept(parse(index, payload)));
    }

    @Override
    public List<FilePrefix> committedFiles() throws IOException {
        return log.committedFiles(size());
    }

    private TimestampRecord read(long index) throws IOException {
        return parse(index, log.read(index));
    }

    private static TimestampRecord parse(long index, byte[] payload) throws IOException {
        try {
            return TimestampRecord.fromJson(JSON.readTree(payload));
        } catch (IOException | IllegalArgumentException e) {
            throw new IOException("timestamp record " + index + " in the timestamps store is unreadable ("
                    + e.getMessage() + "): the store has been altered; restore it from a backup", e);
        }
    }

    @Override
    public void close() throws IOException {
        log.close();
    }
}
