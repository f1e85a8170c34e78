package io.trailproof.index;

import org.apache.lucene.index.ConcurrentMergeScheduler;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * One Lucene index of a generation ({@link LuceneEventIndex} keeps two: agents' events and the trail
 * of who looked): its writer, the near-real-time searchers on it, and the user data of the commit
 * it was opened at. Commits are whole and durable on return ({@link IndexWriter#commit}); what was
 * added since the last commit is lost by a crash or a {@link #rollback}.
 */
final class IndexPart implements Closeable {

    final Directory directory;
    final IndexWriter writer;
    final SearcherManager searchers;
    /** The user data of the commit the part was opened at (empty for a new index). */
    final Map<String, String> opened;
    /** True when that commit held documents. */
    final boolean held;

    private IndexPart(Directory directory, IndexWriter writer, Map<String, String> opened, boolean held)
            throws IOException {
        this.directory = directory;
        this.writer = writer;
        this.opened = Collections.unmodifiableMap(opened);
        this.held = held;
        this.searchers = new SearcherManager(writer, null);
    }

    /**
     * Opens (or creates) the index in {@code path} with a writer sorted by
     * {@link LuceneEventIndex#INDEX_SORT}, after reading its last commit's format.
     *
     * @throws LuceneEventIndex.OtherFormatException when the last commit names another format, or
     *     none while the index holds documents
     */
    static IndexPart open(Path path, IndexOptions options, int ramBufferMb, IndexAnalyzer analyzer)
            throws IOException {
        Directory directory = options.directoryWrapper().apply(FSDirectory.open(path));
        IndexWriter writer = null;
        try {
            // The format is read from the last commit before a writer opens it: a writer whose index
            // sort differs from the segments' refuses to open, which would look like damage.
            Map<String, String> data = new TreeMap<>();
            boolean held = false;
            if (DirectoryReader.indexExists(directory)) {
                SegmentInfos last = SegmentInfos.readLatestCommit(directory);
                data.putAll(last.getUserData());
                held = last.totalMaxDoc() > 0;
            }
            if ((!data.isEmpty() || held) && !LuceneEventIndex.FORMAT.equals(data.get(LuceneEventIndex.COMMIT_FORMAT))) {
                throw new LuceneEventIndex.OtherFormatException("index format " + data.get(LuceneEventIndex.COMMIT_FORMAT)
                        + " is not the current format " + LuceneEventIndex.FORMAT);
            }
            IndexWriterConfig config = new IndexWriterConfig(analyzer)
                    .setOpenMode(IndexWriterConfig.OpenMode.CREATE_OR_APPEND)
                    .setCommitOnClose(false)
                    .setRAMBufferSizeMB(ramBufferMb)
                    .setIndexSort(LuceneEventIndex.INDEX_SORT)
                    .setMergePolicy(new PurgeMerges())
                    .setMergeScheduler(new ConcurrentMergeScheduler())
                    // A refresh or commit never waits for merges of the segments it flushed (Lucene's
                    // default waits up to 500 ms): searches wait for a refresh, and merges run anyway.
                    .setMaxFullFlushMergeWaitMillis(0);
            writer = new IndexWriter(directory, config);
            return new IndexPart(directory, writer, data, held);
        } catch (IOException | RuntimeException e) {
            if (writer != null) {
                try {
                    writer.rollback();
                } catch (IOException | RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            directory.close();
            throw e;
        }
    }

    /**
     * The writer's view as it is now (buffered deletions applied), to count its documents and, now or
     * later, verify its files' checksums ({@link #checkIntegrity}). The caller closes it; until then
     * the files it holds stay on disk whatever the writer merges meanwhile.
     */
    DirectoryReader openedView() throws IOException {
        return DirectoryReader.open(writer);
    }

    /**
     * Verifies the checksum of every file {@code view} holds, reading each whole; a file that fails it
     * throws (a CorruptIndexException).
     */
    static void checkIntegrity(DirectoryReader view) throws IOException {
        for (LeafReaderContext leaf : view.leaves()) {
            leaf.reader().checkIntegrity();
        }
    }

    /** Commits what was added with {@code data} as the commit's user data (durable on return). */
    void commit(Map<String, String> data) throws IOException {
        writer.setLiveCommitData(data.entrySet());
        writer.commit();
    }

    /** Drops everything since the last commit and closes the writer. */
    void rollback() throws IOException {
        writer.rollback();
    }

    /** Closes the searchers and drops everything since the last commit. */
    @Override
    public void close() throws IOException {
        try {
            searchers.close();
        } finally {
            try {
                writer.rollback();
            } finally {
                directory.close();
            }
        }
    }
}
