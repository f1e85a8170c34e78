package io.trailproof.core.evidence;

import io.trailproof.core.note.NoteVerifier;

import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.gate.GateEvent;
import io.trailproof.core.evidence.EvidenceReport.Verdict;
import io.trailproof.core.merkle.Rfc9162;

import java.io.InputStream;
import java.util.function.Consumer;

/**
 * Verifies an evidence package offline (src/site/evidence-format.md): needs nothing but the document and, for
 * timestamp tokens, a {@link TokenChecker}. It recomputes every event hash, checks that
 * sequences are consecutive and every {@code prev_hash} links (the first to {@code anchor_hash}),
 * checks every inclusion proof against {@code merkle_root}, and for each timestamp the consistency
 * of its tree with the package's and, through the token verifier, the token itself.
 *
 * <p>Streams: each event is read, checked and dropped, keeping about 64 bytes of it until its proof
 * is matched, so a package of any size verifies in memory proportional to that, not to its text.
 * This holds when the members come in the order the service writes them ({@link EvidenceFormat});
 * a package whose members were reordered still verifies, holding the out-of-order sections in memory.
 *
 * <p>Never throws for what the document holds: an unreadable or tampered package is a report with
 * verdict {@link Verdict#UNREADABLE} or {@link Verdict#INVALID}. Thread-safe; each call is independent.
 *
 * <p>Made of: {@link PackageReader} (reads the stream, fills the {@link PackageHeader} and feeds the
 * sections to the checkers as they pass), one checker per concern ({@link FormatChecker},
 * {@link ChainChecker}, {@link ChainSummaryChecker}, {@link WindowChecker},
 * {@link InclusionProofChecker}, {@link TimestampsChecker}) and {@link ReportBuilder}; this class
 * only wires them for one call.
 */
public final class EvidenceVerifier {

    private final TokenChecker tokens;
    private final NoteVerifier logKey;

    /** A verifier without RFC 3161 support: timestamp tokens are reported as not checked. */
    public EvidenceVerifier() {
        this(TokenChecker.UNAVAILABLE);
    }

    public EvidenceVerifier(TokenChecker tokens) {
        this(tokens, null);
    }

    /** With {@code logKey} (null: the signed checkpoint is reported as not checked). */
    public EvidenceVerifier(TokenChecker tokens, NoteVerifier logKey) {
        this.tokens = tokens;
        this.logKey = logKey;
    }

    /**
     * Reads the package from {@code in} to its end and reports what it proves. The caller opened
     * the stream and closes it.
     */
    public EvidenceReport verify(InputStream in) {
        return verify(in, event -> { });
    }

    /**
     * {@link #verify(InputStream)}, also handing each readable event of the package, in order, to
     * {@code alsoEach} (the capture summary of verify-export), so the package is read once.
     */
    public EvidenceReport verify(InputStream in, Consumer<StoredEvent> alsoEach) {
        PackageHeader header = new PackageHeader();
        EventLeaves leaves = new EventLeaves();
        FormatChecker format = new FormatChecker(header);
        ErasureChecker erasures = new ErasureChecker(header, format.findings());
        ChainChecker chain = new ChainChecker(header, format.findings(), erasures);
        InclusionProofChecker inclusion = new InclusionProofChecker(header, leaves);
        TimestampsChecker timestamps = new TimestampsChecker(header, leaves, tokens);
        GateBindingChecker gates = new GateBindingChecker();
        try {
            new PackageReader(header, format.findings(), new Events(leaves, chain, gates, alsoEach), inclusion, timestamps,
                    erasures).read(in);
        } catch (PackageReader.UnreadablePackage e) {
            return ReportBuilder.unreadable(e.getMessage());
        }
        erasures.check();
        StoredEvent first = chain.firstEvent();
        StoredEvent last = chain.lastEvent();
        ReportBuilder report = new ReportBuilder().check(format.result());
        for (CheckResult r : chain.results()) {
            // The chain's own failure is the more telling one; else an erased event no erasure names.
            CheckResult erasure = r.check() == EvidenceCheck.EVENT_HASHES ? erasures.hashFailure() : null;
            report.check(erasure != null && !r.failed() ? erasure : r);
        }
        CheckResult proofs = inclusion.result();
        CheckResult erasureProofs = erasures.inclusionFailure();
        return report.check(new ChainSummaryChecker(header).result(first, last, leaves.size()))
                .check(WindowChecker.result(header.filter(), first, last))
                .check(erasureProofs != null && !proofs.failed() ? erasureProofs : proofs)
                .check(timestamps.result())
                .check(CheckpointChecker.result(header, logKey))
                .check(gates.result(GateEvent.micros(header.get(EvidenceFormat.EXPORTED_AT) == null ? null
                        : header.get(EvidenceFormat.EXPORTED_AT).asText(null))))
                .build(header, first, last, leaves.size(), timestamps.timestamps(), erasures.summaries());
    }

    /** Each event goes to the chain check and leaves its facts for the proofs and timestamps after it. */
    private record Events(EventLeaves leaves, ChainChecker chain, GateBindingChecker gates,
                          Consumer<StoredEvent> alsoEach)
            implements PackageReader.EventSink {
        @Override
        public void event(StoredEvent event) {
            leaves.add(event.id(), event.sequence(), event.logIndex(), Rfc9162.leafHash(event.hashBytes()));
            chain.event(event);
            gates.event(event);
            alsoEach.accept(event);
        }

        @Override
        public void unreadableEvent(String why) {
            leaves.addUnreadable();
            chain.unreadableEvent(why);
        }
    }
}
