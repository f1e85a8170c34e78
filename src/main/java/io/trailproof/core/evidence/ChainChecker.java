package io.trailproof.core.evidence;

import static io.trailproof.core.evidence.EvidenceFormat.*;
import static io.trailproof.core.evidence.FormatValues.*;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.chain.ChainFailure;
import io.trailproof.core.chain.ChainVerifier;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventHash;
import io.trailproof.core.event.StoredEvent;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The checks of the events themselves (src/site/evidence-format.md): every event's hash recomputed from its content
 * ({@link EvidenceCheck#EVENT_HASHES}), consecutive sequences ({@link EvidenceCheck#SEQUENCES}), the
 * first event linked to the stated anchor ({@link EvidenceCheck#ANCHOR}) and every further one to its
 * predecessor ({@link EvidenceCheck#PREV_HASH_LINKS}). Fed one event at a time by the reader, through
 * the same {@link ChainVerifier} the server audits its chains with; the chain is not checked beyond
 * its first failure. Keeps the first and last event, whose facts the other checks and the report use.
 */
final class ChainChecker implements PackageReader.EventSink {

    private static final List<EvidenceCheck> CHECKS = List.of(EvidenceCheck.EVENT_HASHES, EvidenceCheck.SEQUENCES,
            EvidenceCheck.ANCHOR, EvidenceCheck.PREV_HASH_LINKS);

    private final PackageHeader header;
    private final Tally format;
    private final Tally anchor = new Tally(EvidenceCheck.ANCHOR);
    private final ErasedEvents erasures;
    /** The erasure id the event being checked claims; the erasure items are matched after reading. */
    private String claimedErasure;
    private ChainVerifier chainVerifier;
    private String chainAgent;
    private long chainFirstSequence;
    private long count;
    private StoredEvent failedEvent;
    private long failedOrdinal = -1;
    private StoredEvent firstEvent;
    private StoredEvent lastEvent;

    /** @param format where a chain summary that states no usable anchor is reported */
    /**
     * @param format    where a chain summary that states no usable anchor is reported
     * @param erasures  where each erased event is sent, to be matched with the erasure events that name it
     */
    ChainChecker(PackageHeader header, Tally format, ErasedEvents erasures) {
        this.header = header;
        this.format = format;
        this.erasures = erasures;
    }

    @Override
    public void event(StoredEvent event) {
        count++;
        if (firstEvent == null) {
            firstEvent = event;
        }
        lastEvent = event;
        ChainVerifier verifier = verifierFor(event);
        boolean failedBefore = verifier.failure().isPresent();
        claimedErasure = event.erasureId();
        if (verifier.next(event, -1, null).isPresent() && !failedBefore) {
            failedEvent = event;
            failedOrdinal = count - 1;
        } else if (event.erased() && !failedBefore) {
            erasures.claim(event);
        }
    }

    @Override
    public void unreadableEvent(String why) {
        count++;
        ChainVerifier verifier = verifierFor(null);
        if (verifier.failure().isEmpty()) {
            failedEvent = null;
            failedOrdinal = count - 1;
        }
        verifier.unreadable(why);
    }

    /** The first readable event, or null. */
    StoredEvent firstEvent() {
        return firstEvent;
    }

    /** The last readable event, or null. */
    StoredEvent lastEvent() {
        return lastEvent;
    }

    /**
     * The chain checker, made at the first event: the chain's agent is that event's (so a package of
     * another agent than it claims fails the summary, not every hash), its first sequence and anchor
     * those the package states.
     */
    private ChainVerifier verifierFor(StoredEvent first) {
        if (chainVerifier == null) {
            JsonNode chain = header.chain();
            chainAgent = first != null ? first.agentId() : text(chain, AGENT_ID);
            Long firstSequence = whole(chain, FIRST_SEQUENCE);
            chainFirstSequence = firstSequence != null ? firstSequence : first != null ? first.sequence() : 1;
            String anchorHash = text(chain, ANCHOR_HASH);
            if (!EventHash.isHex(anchorHash)) {
                format.fail(null, null, "chain.anchor_hash as 64 lowercase hex digits", String.valueOf(anchorHash),
                        "the package does not state the hash its first event links to");
                anchorHash = chainFirstSequence == 1 ? EventFields.GENESIS_PREV_HASH : String.valueOf(anchorHash);
            }
            if (chainFirstSequence == 1 && !EventFields.GENESIS_PREV_HASH.equals(anchorHash)) {
                anchor.fail(1L, first == null ? null : first.id(), EventFields.GENESIS_PREV_HASH, anchorHash,
                        "the chain starts at sequence 1, whose anchor is always 64 zeros");
            }
            // An erased event passes the chain check on its links, sequence and claim; whether an
            // erasure event of the package names it is the ErasureChecker's to say.
            chainVerifier = new ChainVerifier(String.valueOf(chainAgent), chainFirstSequence, anchorHash)
                    .withErasures(logIndex -> claimedErasure);
        }
        return chainVerifier;
    }

    /** The result of each of the four chain checks; call once, after reading. */
    List<CheckResult> results() {
        List<CheckResult> results = new ArrayList<>(CHECKS.size());
        if (count == 0) {
            for (EvidenceCheck c : CHECKS) {
                results.add(c == EvidenceCheck.ANCHOR && anchor.failed() ? anchor.result("")
                        : CheckResult.skipped(c, "the package contains no events"));
            }
            return results;
        }
        Optional<ChainFailure> failure = chainVerifier.failure();
        EvidenceCheck failed = failure.map(this::checkOf).orElse(null);
        long n = count;
        for (EvidenceCheck c : CHECKS) {
            if (c == failed) {
                ChainFailure f = failure.get();
                String eventId = failedEvent != null ? failedEvent.id() : null;
                Tally t = c == EvidenceCheck.ANCHOR ? anchor : new Tally(c);
                t.fail(f.sequence(), eventId, f.expected(), f.actual(), explain(c, f));
                results.add(t.result(""));
            } else if (c == EvidenceCheck.ANCHOR && anchor.failed()) {
                results.add(anchor.result(""));
            } else if (failure.isPresent() && !(c == EvidenceCheck.ANCHOR && failedOrdinal > 0)) {
                results.add(CheckResult.skipped(c, "checked for the events before sequence "
                        + failure.get().sequence() + ", where " + failed.id() + " failed; the chain is not "
                        + "checked beyond its first failure"));
            } else {
                results.add(CheckResult.passed(c, switch (c) {
                    case EVENT_HASHES -> erasures.count() == 0
                            ? n + " event hashes recomputed from the events' content"
                            : (n - erasures.count()) + " event hashes recomputed from the events' content; "
                            + erasures.count() + " erased events keep the hash as committed, each named by an "
                            + "erasure event of the package";
                    case SEQUENCES -> "sequences " + chainFirstSequence + " to " + (chainFirstSequence + n - 1)
                            + ", no gaps";
                    case ANCHOR -> "the first event (sequence " + chainFirstSequence + ") links to "
                            + text(header.chain(), ANCHOR_HASH);
                    default -> (n - 1) + " links between consecutive events";
                }));
            }
        }
        return results;
    }

    private EvidenceCheck checkOf(ChainFailure f) {
        return switch (f.kind()) {
            case HASH_MISMATCH, ERASURE_WITHOUT_RECORD -> EvidenceCheck.EVENT_HASHES;
            case SEQUENCE_GAP -> EvidenceCheck.SEQUENCES;
            case PREV_HASH_MISMATCH -> f.sequence() == chainFirstSequence && failedOrdinal == 0
                    ? EvidenceCheck.ANCHOR : EvidenceCheck.PREV_HASH_LINKS;
            case MERKLE_LEAF_MISMATCH -> EvidenceCheck.INCLUSION_PROOFS;
        };
    }

    private String explain(EvidenceCheck c, ChainFailure f) {
        return switch (c) {
            case EVENT_HASHES -> failedEvent == null
                    ? "the event cannot be read as a stored event (" + f.actual().replaceFirst("^unreadable: ", "") + ")"
                    : !failedEvent.agentId().equals(chainAgent)
                    ? "the event belongs to another agent's chain"
                    : "the hash recomputed from the event's content (actual) is not the hash it carries "
                    + "(expected): the event was changed after it was recorded";
            case SEQUENCES -> "expected sequence " + f.expected() + " here, found " + f.actual()
                    + ": an event is missing, added or out of order";
            case ANCHOR -> "the first event's prev_hash (actual) is not the package's anchor_hash (expected)";
            default -> "the event's prev_hash (actual) is not the hash of the event before it (expected): "
                    + "the chain is broken here";
        };
    }
}
