package io.trailproof.checkpoint;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventHash;
import io.trailproof.ledger.Ledger;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** The ledger as a {@link LogTree}: its readable size, stored nodes, and leaves read from the log. */
public final class LedgerTree implements LogTree {
    private static final JsonFactory JSON = new JsonFactory();

    private final Ledger ledger;

    public LedgerTree(Ledger ledger) {
        this.ledger = ledger;
    }

    @Override
    public long size() {
        return ledger.size();
    }

    @Override
    public byte[] root(long size) {
        return ledger.root(size);
    }

    @Override
    public CompletableFuture<Void> whenReadable() {
        return ledger.whenTreeChecked();
    }

    @Override
    public List<byte[]> consistencyProof(long m, long n) {
        return ledger.consistencyProof(m, n);
    }

    @Override
    public byte[] nodes(int level, long from, int count) {
        return ledger.treeNodes(level, from, count);
    }

    /**
     * Reads the events from the log (one sequential scan) and takes each one's stored {@code hash}
     * member with a streaming parse that skips the rest: a full parse of 256 events per bundle cost
     * several milliseconds. The log holds each event exactly as it was hashed and sealed.
     */
    @Override
    public List<byte[]> leaves(long from, int count) throws IOException {
        List<byte[]> out = new ArrayList<>(count);
        ledger.scan(from, from + count, (index, payload) -> out.add(storedHash(index, payload)));
        if (out.size() != count) {
            throw new IOException("read " + out.size() + " of " + count + " events from " + from);
        }
        return out;
    }

    private static byte[] storedHash(long index, byte[] payload) throws IOException {
        try (JsonParser p = JSON.createParser(payload)) {
            if (p.nextToken() == JsonToken.START_OBJECT) {
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    p.nextToken();
                    if (name.equals(EventFields.HASH) && p.currentToken() == JsonToken.VALUE_STRING
                            && EventHash.isHex(p.getText())) {
                        return HexFormat.of().parseHex(p.getText());
                    }
                    p.skipChildren();
                }
            }
        }
        throw new IOException("stored event " + index + " has no hash");
    }
}
