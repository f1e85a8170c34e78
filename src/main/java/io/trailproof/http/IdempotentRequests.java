package io.trailproof.http;

import io.trailproof.ledger.DedupeKey;
import io.trailproof.ledger.DedupeRecord;
import io.trailproof.ledger.DedupeTable;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerViews.AppendOutcome;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code Idempotency-Key} on {@code POST /v1/events} and {@code POST /v1/batch} (src/site/ingestion.md#idempotency).
 *
 * <p>A key is scoped to the caller's API key (everyone when no keys are configured) and to the path:
 * both are folded into the {@link DedupeKey} digest with the key itself. The first request with a
 * key claims it ({@link Ledger#dedupe}); when it stores anything (201, 207) its answer is recorded by
 * the ledger in the same group, under the same commit, as its events; a refusal (any 4xx) or a
 * failure releases the claim and records nothing.
 *
 * <p><b>What is recorded.</b> Not a copy of the body, which would store every event twice, but
 * the answer's shape: the status, and for a single event its log index; for a batch the number of
 * items, the log index of the first stored one (a batch's stored items are consecutive in the log)
 * and each refused item's index and error. The body is written again from that and the stored
 * events by the same writer that wrote the first answer ({@link BatchAnswer}; a single event's
 * body is its stored bytes), so a replay is byte for byte the first answer; the events it names are
 * in the record's own group, so whenever the record exists, so do they.
 *
 * <pre>
 *   'E' status(2) logIndex(8)                                             a single event
 *   'B' status(2) items(4) firstIndex(8) errors(4) [item(4) length(4) UTF-8]...   a batch
 * </pre>
 */
final class IdempotentRequests {

    static final HttpString REPLAYED = new HttpString("Idempotent-Replayed");
    private static final byte SINGLE = 'E';
    private static final byte BATCH = 'B';

    private final Ledger ledger;
    private final Authenticator authenticator;

    IdempotentRequests(Ledger ledger, Authenticator authenticator) {
        this.ledger = ledger;
        this.authenticator = authenticator;
    }

    /** What a keyed request does next: go on holding a claim, or answer with a replay. */
    sealed interface Start permits Claimed, Replayed {
    }

    record Claimed(DedupeTable.Claim claim) implements Start {
    }

    record Replayed(Router.Answer answer) implements Start {
    }

    /**
     * Null when the request carries no key (nothing else is done then). Otherwise the claim, or
     * the replay of the recorded answer.
     *
     * @throws ApiException 400 for a malformed key, 422 for the key used with another body, 409 with
     *     {@code Retry-After: 1} while a request with the same key and body is being processed
     */
    Start begin(HttpServerExchange ex, byte[] body) throws ApiException, IOException {
        return begin(ex, body, this::replay);
    }

    /** A recorded answer written again; for endpoints whose body is built from the event a record names. */
    @FunctionalInterface
    interface Replayer {
        Router.Answer replay(byte[] record) throws IOException;
    }

    /** {@link #begin(HttpServerExchange, byte[])} with the endpoint's own way of writing a recorded answer again. */
    Start begin(HttpServerExchange ex, byte[] body, Replayer replayer) throws ApiException, IOException {
        String key = IdempotencyKeyHeader.parse(ex.getRequestHeaders().get(IdempotencyKeyHeader.NAME));
        if (key == null) {
            return null;
        }
        String scope = authenticator.scope(ex.getRequestHeaders().getFirst(Headers.AUTHORIZATION));
        DedupeKey dedupeKey = DedupeKey.of(DedupeRecord.IDEMPOTENCY_KEY, scope, ex.getRelativePath(), key);
        if (ex.isInIoThread() && ledger.dedupe().keysLoading()) {
            // The claim would wait for the keys' load; the I/O thread must not.
            throw new ApiException(503, "the idempotency keys recorded before the start are still being loaded; "
                    + "nothing was stored, retry in a second", Map.of("Retry-After", "1"));
        }
        DedupeTable.Lookup found = ledger.dedupe().claim(dedupeKey, DedupeKey.contentDigest(body));
        return switch (found) {
            case DedupeTable.Fresh f -> new Claimed(f.claim());
            case DedupeTable.Replay r -> new Replayed(replayer.replay(r.record().answer()));
            case DedupeTable.InFlight i -> throw new ApiException(409, "a request with this Idempotency-Key and the same "
                    + "body is still being processed; retry in a second to get its answer", Map.of("Retry-After", "1"));
            case DedupeTable.Conflict c -> throw new ApiException(422, "this Idempotency-Key was already used with a "
                    + "different body; send the same body to get the recorded answer, or use a new key");
            case DedupeTable.Recorded r -> throw new IllegalStateException("the ledger reads recorded answers back");
        };
    }

    // ------------------------------------------------------------------ recording

    /** The record of a single event's answer: its 201, or nothing when it was refused (a 400). */
    static byte[] singleAnswer(List<AppendOutcome> outcomes) {
        AppendOutcome o = outcomes.get(0);
        if (!o.ok()) {
            return null;
        }
        return ByteBuffer.allocate(11).put(SINGLE).putShort((short) 201).putLong(o.event().logIndex()).array();
    }

    /**
     * The record of a batch's answer (always recorded: 201 or 207, a 207 whose every item failed too).
     *
     * @param refused per item, the validation error or null; not changed
     * @param validItems the item index of each outcome
     */
    static byte[] batchAnswer(String[] refused, List<Integer> validItems, List<AppendOutcome> outcomes) {
        String[] errors = refused.clone();
        long first = -1;
        for (int j = 0; j < outcomes.size(); j++) {
            AppendOutcome o = outcomes.get(j);
            if (o.ok()) {
                first = first < 0 ? o.event().logIndex() : first;
            } else {
                errors[validItems.get(j)] = o.error();
            }
        }
        List<byte[]> messages = new ArrayList<>();
        int bytes = 1 + 2 + 4 + 8 + 4;
        for (String e : errors) {
            if (e != null) {
                byte[] m = e.getBytes(StandardCharsets.UTF_8);
                messages.add(m);
                bytes += 8 + m.length;
            }
        }
        ByteBuffer b = ByteBuffer.allocate(bytes).put(BATCH).putShort((short) (messages.isEmpty() ? 201 : 207))
                .putInt(errors.length).putLong(first).putInt(messages.size());
        int m = 0;
        for (int i = 0; i < errors.length; i++) {
            if (errors[i] != null) {
                byte[] msg = messages.get(m++);
                b.putInt(i).putInt(msg.length).put(msg);
            }
        }
        return b.array();
    }

    // ------------------------------------------------------------------ replay

    /** The log index a single event's record names (its kind 'E'), or -1 for another kind. */
    static long singleLogIndex(byte[] answer) {
        ByteBuffer b = ByteBuffer.wrap(answer);
        if (b.get() != SINGLE) {
            return -1;
        }
        b.getShort();
        return b.getLong();
    }

    /** The recorded answer, written again from its record and the stored events it names. */
    Router.Answer replay(byte[] answer) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(answer);
        byte kind = b.get();
        int status = b.getShort();
        if (kind == SINGLE) {
            byte[] event = ledger.payloadAt(b.getLong());
            String id = Responses.MAPPER.readTree(event).get("id").asText();
            return ex -> {
                ex.getResponseHeaders().put(REPLAYED, "true");
                ex.getResponseHeaders().put(Headers.LOCATION, "/v1/events/" + id);
                Responses.bytes(ex, status, event);
            };
        }
        if (kind != BATCH) {
            throw new IOException("unknown recorded answer kind " + kind);
        }
        String[] errors = new String[b.getInt()];
        long first = b.getLong();
        int refused = b.getInt();
        for (int i = 0; i < refused; i++) {
            int item = b.getInt();
            byte[] msg = new byte[b.getInt()];
            b.get(msg);
            errors[item] = new String(msg, StandardCharsets.UTF_8);
        }
        int stored = errors.length - refused;
        // Written as the events are read back (no copy of each), sized for ~800-byte events: a
        // replayed 1,000-event batch would otherwise allocate about twice its answer, and that garbage
        // sets the tail of its latency.
        Responses.Written body = BatchAnswer.write(errors, 2 + errors.length * 32 + stored * 800,
                visitor -> {
                    if (stored > 0) {
                        ledger.scanViews(first, first + stored, visitor);
                    }
                });
        return ex -> {
            ex.getResponseHeaders().put(REPLAYED, "true");
            Responses.bytes(ex, status, body);
        };
    }
}
