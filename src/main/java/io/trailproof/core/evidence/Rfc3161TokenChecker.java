package io.trailproof.core.evidence;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.evidence.CheckResult.Outcome;
import io.trailproof.core.timestamp.TimestampCheck;
import io.trailproof.core.timestamp.TimestampFailure;
import io.trailproof.core.timestamp.TimestampRecord;
import io.trailproof.core.timestamp.TimestampTokenVerifier;
import io.trailproof.core.timestamp.TimestampVerification;
import io.trailproof.core.timestamp.TokenFacts;

import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;

/**
 * The RFC 3161 {@link TokenChecker} of the offline verifier (src/site/evidence-format.md): reads a package's
 * {@code timestamps} entry as the timestamp record of src/site/timestamps.md#record and runs the same token checks as
 * the server ({@link TimestampTokenVerifier#verifyToken}): {@code signature}, {@code message_imprint}
 * against the entry's own {@code merkle_root}, and {@code certificate_chain} at the token's genTime
 * against the anchors given here. The consistency of that root with the package's tree is checked by
 * {@link EvidenceVerifier} (its {@code TimestampsChecker}). Pure: the caller loads the anchors.
 */
public final class Rfc3161TokenChecker implements TokenChecker {

    private static final List<TimestampCheck> TOKEN_CHECKS = List.of(TimestampCheck.SIGNATURE,
            TimestampCheck.MESSAGE_IMPRINT, TimestampCheck.CERTIFICATE_CHAIN);

    private final Supplier<? extends Collection<X509Certificate>> anchors;
    private final String chainAdvice;

    /**
     * @param anchors     the certificates a TSA chain may end in (empty: nothing is trusted)
     * @param chainAdvice a sentence added to a failed {@code certificate_chain}, telling the reader
     *                    how to supply anchors (e.g. which option to pass); null for none
     */
    public Rfc3161TokenChecker(Collection<X509Certificate> anchors, String chainAdvice) {
        this(constant(List.copyOf(anchors)), chainAdvice);
    }

    /**
     * As {@link #Rfc3161TokenChecker(Collection, String)}, with the anchors asked of {@code anchors}
     * when a token's chain is checked, not before: a package without a timestamp never needs them
     * (the JDK's trust store takes a good part of a short command's start to load).
     */
    public Rfc3161TokenChecker(Supplier<? extends Collection<X509Certificate>> anchors, String chainAdvice) {
        this.anchors = anchors;
        this.chainAdvice = chainAdvice;
    }

    private static Supplier<List<X509Certificate>> constant(List<X509Certificate> anchors) {
        return () -> anchors;
    }

    @Override
    public TokenVerdict check(JsonNode entry) {
        TimestampRecord record;
        try {
            record = TimestampRecord.fromJson(entry);
        } catch (IllegalArgumentException e) {
            return new TokenVerdict(List.of(new TokenCheck("token", Outcome.FAILED, "a timestamp record (src/site/timestamps.md#record)",
                    e.getMessage(), "the timestamp entry is not a readable timestamp record: " + e.getMessage())),
                    null, null);
        }
        TimestampVerification v = TimestampTokenVerifier.verifyToken(record.tokenDer(), record.certificateDers(),
                record.merkleRootBytes(), anchors.get());
        List<TokenCheck> checks = new ArrayList<>(TOKEN_CHECKS.size());
        for (TimestampCheck c : TOKEN_CHECKS) {
            TimestampFailure failure = v.failures().stream().filter(f -> f.check() == c).findFirst().orElse(null);
            if (failure != null) {
                String detail = failure.reason();
                if (c == TimestampCheck.CERTIFICATE_CHAIN && chainAdvice != null) {
                    detail = detail + "; " + chainAdvice;
                }
                checks.add(new TokenCheck(c.label(), Outcome.FAILED, failure.expected(), failure.actual(), detail));
            } else if (v.passed(c)) {
                checks.add(new TokenCheck(c.label(), Outcome.PASSED, null, null, passed(c, record, v)));
            } else {
                checks.add(new TokenCheck(c.label(), Outcome.SKIPPED, null, null, "not checked"));
            }
        }
        TokenFacts facts = v.facts().orElse(null);
        return new TokenVerdict(checks, facts == null ? null : facts.genTime().toString(),
                facts == null ? null : facts.tsaName());
    }

    private static String passed(TimestampCheck c, TimestampRecord record, TimestampVerification v) {
        return switch (c) {
            case SIGNATURE -> "the token is signed by its time-stamping certificate "
                    + v.facts().map(TokenFacts::tsaName).orElse("") + " and unaltered";
            case MESSAGE_IMPRINT -> "the token stamps the root " + record.merkleRoot() + " of the log's first "
                    + record.treeSize() + " events";
            case CERTIFICATE_CHAIN -> "the TSA's certificate chain reaches a trust anchor, every certificate valid at "
                    + v.facts().map(f -> f.genTime().toString()).orElse("the token's time");
            case CONSISTENCY -> "";
        };
    }
}
