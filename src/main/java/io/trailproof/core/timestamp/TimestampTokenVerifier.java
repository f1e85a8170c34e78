package io.trailproof.core.timestamp;

import io.trailproof.core.merkle.ConsistencyCheck;
import io.trailproof.core.merkle.MerkleProofs;
import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.ess.ESSCertID;
import org.bouncycastle.asn1.ess.ESSCertIDv2;
import org.bouncycastle.asn1.ess.SigningCertificate;
import org.bouncycastle.asn1.ess.SigningCertificateV2;
import org.bouncycastle.asn1.oiw.OIWObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.IssuerSerial;
import org.bouncycastle.asn1.cms.Attribute;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cms.jcajce.JcaSimpleSignerInfoVerifierBuilder;
import org.bouncycastle.operator.DigestCalculator;
import org.bouncycastle.operator.jcajce.JcaDigestCalculatorProviderBuilder;
import org.bouncycastle.tsp.TSPUtil;
import org.bouncycastle.tsp.TSPValidationException;
import org.bouncycastle.tsp.TimeStampToken;

import java.io.IOException;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.cert.CertPathBuilder;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertStore;
import java.security.cert.CollectionCertStoreParameters;
import java.security.cert.PKIXBuilderParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509CertSelector;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.bouncycastle.asn1.x500.X500Name;

/**
 * Verifies a stored RFC 3161 timestamp without trusting the service that stored it (src/site/evidence-format.md,
 * 6.3): for the server's {@code GET /v1/timestamps/verify} and for the offline verifier of evidence
 * packages. Pure: trust anchors come in as certificates; the caller loads them.
 *
 * <ul>
 *   <li>{@code signature}: the signer certificate named by the token is among the certificates,
 *       is bound to the signature by the signing-certificate attribute (ESSCertIDv2 or ESSCertID:
 *       hash and, when present, issuer and serial), has the critical timeStamping extended key
 *       usage, and the CMS signature verifies with its key;</li>
 *   <li>{@code message_imprint}: the imprint is SHA-256 and equals the expected root;</li>
 *   <li>{@code certificate_chain}: PKIX path validation from the signer to one of the anchors, with
 *       every certificate valid at the token's genTime. Revocation is not checked (offline).</li>
 * </ul>
 */
public final class TimestampTokenVerifier {

    private static final HexFormat HEX = HexFormat.of();

    private TimestampTokenVerifier() {
    }

    /**
     * The three token checks (signature, message_imprint, certificate_chain).
     *
     * @param certificates DER certificates stored with the token; those embedded in the token count too
     * @param expectedRoot the root the token must stamp
     * @param anchors      trusted root certificates; empty means nothing is trusted
     */
    public static TimestampVerification verifyToken(byte[] tokenDer, List<byte[]> certificates, byte[] expectedRoot,
                                                    Collection<X509Certificate> anchors) {
        TimeStampToken token;
        try {
            token = Rfc3161.parseToken(tokenDer);
        } catch (IOException e) {
            return unreadable(e.getMessage());
        }
        try {
            return checks(token, certificates, expectedRoot, anchors);
        } catch (RuntimeException e) {
            // BouncyCastle parses parts of a token lazily; a damaged part surfaces here.
            return unreadable(e.getMessage());
        }
    }

    private static TimestampVerification unreadable(String why) {
        TimestampVerification v = new TimestampVerification(null, new EnumMap<>(TimestampCheck.class), List.of());
        String reason = "the token cannot be read (" + why + "): it is damaged or not an RFC 3161 token";
        for (TimestampCheck c : List.of(TimestampCheck.SIGNATURE, TimestampCheck.MESSAGE_IMPRINT,
                TimestampCheck.CERTIFICATE_CHAIN)) {
            v = v.withFailure(new TimestampFailure(c, reason, null, null));
        }
        return v;
    }

    private static TimestampVerification checks(TimeStampToken token, List<byte[]> certificates, byte[] expectedRoot,
                                                Collection<X509Certificate> anchors) {
        List<X509CertificateHolder> pool = new ArrayList<>();
        List<TimestampFailure> failures = new ArrayList<>();
        for (int i = 0; i < certificates.size(); i++) {
            try {
                pool.add(new X509CertificateHolder(certificates.get(i)));
            } catch (IOException | RuntimeException e) {
                failures.add(new TimestampFailure(TimestampCheck.CERTIFICATE_CHAIN,
                        "stored certificate " + (i + 1) + " is not a readable X.509 certificate", null, null));
            }
        }
        for (X509CertificateHolder c : token.getCertificates().getMatches(null)) {
            if (!pool.contains(c)) {
                pool.add(c);
            }
        }
        X509CertificateHolder signer = Rfc3161.signerOf(token, pool);
        TokenFacts facts = Rfc3161.facts(token, signer);
        TimestampVerification v = new TimestampVerification(facts, new EnumMap<>(TimestampCheck.class), failures);

        TimestampFailure signature = signature(token, signer);
        v = signature == null ? v.withPassed(TimestampCheck.SIGNATURE) : v.withFailure(signature);

        TimestampFailure imprint = imprint(token, expectedRoot);
        v = imprint == null ? v.withPassed(TimestampCheck.MESSAGE_IMPRINT) : v.withFailure(imprint);

        if (signer == null) {
            v = v.withFailure(new TimestampFailure(TimestampCheck.CERTIFICATE_CHAIN,
                    "the token's signer certificate is not among its certificates, so there is no chain to check", null, null));
        } else {
            TimestampFailure chain = chain(signer, pool, facts.genTime(), anchors);
            v = chain == null ? v.withPassed(TimestampCheck.CERTIFICATE_CHAIN) : v.withFailure(chain);
        }
        return v;
    }

    /**
     * All four checks for a stored record against a later tree: the token checks with the record's
     * root as the expected imprint (and the record's {@code tree_size} and root as stated), plus the
     * RFC 9162 consistency proof from the stamped tree to the later one.
     */
    public static TimestampVerification verifyRecord(TimestampRecord record, Collection<X509Certificate> anchors,
                                                     long laterSize, byte[] laterRoot, List<byte[]> consistencyProof) {
        TimestampVerification v = verifyToken(record.tokenDer(), record.certificateDers(), record.merkleRootBytes(), anchors);
        TimestampFailure consistency = consistency(record.treeSize(), record.merkleRootBytes(), laterSize, laterRoot,
                consistencyProof);
        return consistency == null ? v.withPassed(TimestampCheck.CONSISTENCY) : v.withFailure(consistency);
    }

    /** The consistency check alone: null when the proof shows the later tree extends the stamped one. */
    public static TimestampFailure consistency(long stampedSize, byte[] stampedRoot, long laterSize, byte[] laterRoot,
                                               List<byte[]> proof) {
        if (laterSize < stampedSize) {
            return new TimestampFailure(TimestampCheck.CONSISTENCY, "the later tree (size " + laterSize
                    + ") is smaller than the stamped tree (size " + stampedSize + "): events were removed",
                    "tree size >= " + stampedSize, String.valueOf(laterSize));
        }
        ConsistencyCheck c = MerkleProofs.checkConsistency(stampedSize, laterSize, stampedRoot, laterRoot, proof);
        if (c.valid()) {
            return null;
        }
        return new TimestampFailure(TimestampCheck.CONSISTENCY, "the tree of size " + laterSize
                + " does not extend the stamped tree of size " + stampedSize + " (" + c.reason() + ")",
                HEX.formatHex(stampedRoot), c.computedRootM() == null ? null : HEX.formatHex(c.computedRootM()));
    }

    private static TimestampFailure signature(TimeStampToken token, X509CertificateHolder signer) {
        if (signer == null) {
            return new TimestampFailure(TimestampCheck.SIGNATURE,
                    "the token's signer certificate is not among its certificates", token.getSID().toString(), null);
        }
        String binding = essBinding(token, signer);
        if (binding != null) {
            return new TimestampFailure(TimestampCheck.SIGNATURE, binding, null, signer.getSubject().toString());
        }
        try {
            TSPUtil.validateCertificate(signer);
        } catch (TSPValidationException e) {
            return new TimestampFailure(TimestampCheck.SIGNATURE, "the signer certificate " + signer.getSubject()
                    + " is not a time-stamping certificate (extended key usage timeStamping only, marked critical)",
                    "critical extended key usage timeStamping", e.getMessage());
        }
        try {
            // The key alone: the certificate's validity dates belong to certificate_chain, checked at genTime.
            PublicKey key = new JcaX509CertificateConverter().getCertificate(signer).getPublicKey();
            if (!token.isSignatureValid(new JcaSimpleSignerInfoVerifierBuilder().build(key))) {
                return new TimestampFailure(TimestampCheck.SIGNATURE, "the token's signature does not verify with the key of "
                        + signer.getSubject() + ": the token was altered or signed by another key", null, null);
            }
        } catch (Exception e) {
            return new TimestampFailure(TimestampCheck.SIGNATURE, "the token's signature cannot be verified: " + e.getMessage(),
                    null, null);
        }
        return null;
    }

    /** Null when the signing-certificate attribute names {@code signer}; otherwise why not. */
    private static String essBinding(TimeStampToken token, X509CertificateHolder signer) {
        try {
            byte[] expectedHash;
            AlgorithmIdentifier hashAlgorithm;
            IssuerSerial issuerSerial;
            Attribute v2 = token.getSignedAttributes().get(PKCSObjectIdentifiers.id_aa_signingCertificateV2);
            if (v2 != null) {
                ESSCertIDv2 id = SigningCertificateV2.getInstance(first(v2)).getCerts()[0];
                expectedHash = id.getCertHash();
                hashAlgorithm = id.getHashAlgorithm();
                issuerSerial = id.getIssuerSerial();
            } else {
                Attribute v1 = token.getSignedAttributes().get(PKCSObjectIdentifiers.id_aa_signingCertificate);
                if (v1 == null) {
                    return "the token has no signing-certificate attribute (ESSCertID or ESSCertIDv2)";
                }
                ESSCertID id = SigningCertificate.getInstance(first(v1)).getCerts()[0];
                expectedHash = id.getCertHash();
                hashAlgorithm = new AlgorithmIdentifier(OIWObjectIdentifiers.idSHA1);
                issuerSerial = id.getIssuerSerial();
            }
            DigestCalculator calc = new JcaDigestCalculatorProviderBuilder().build().get(hashAlgorithm);
            try (OutputStream out = calc.getOutputStream()) {
                out.write(signer.getEncoded());
            }
            if (!MessageDigest.isEqual(expectedHash, calc.getDigest())) {
                return "the signing-certificate attribute names a different certificate than " + signer.getSubject();
            }
            if (issuerSerial != null) {
                boolean serialMatches = issuerSerial.getSerial().getValue().equals(signer.getSerialNumber());
                boolean issuerMatches = false;
                for (GeneralName n : issuerSerial.getIssuer().getNames()) {
                    if (n.getTagNo() == GeneralName.directoryName
                            && X500Name.getInstance(n.getName()).equals(signer.getIssuer())) {
                        issuerMatches = true;
                    }
                }
                if (!serialMatches || !issuerMatches) {
                    return "the signing-certificate attribute's issuer and serial do not match " + signer.getSubject();
                }
            }
            return null;
        } catch (Exception e) {
            return "the signing-certificate attribute cannot be read: " + e.getMessage();
        }
    }

    private static ASN1Encodable first(Attribute a) {
        return a.getAttrValues().getObjectAt(0);
    }

    private static TimestampFailure imprint(TimeStampToken token, byte[] expectedRoot) {
        var info = token.getTimeStampInfo();
        String actual = HEX.formatHex(info.getMessageImprintDigest());
        if (!Rfc3161.HASH_ALGORITHM.equals(info.getMessageImprintAlgOID())) {
            return new TimestampFailure(TimestampCheck.MESSAGE_IMPRINT, "the token's imprint is not SHA-256 (algorithm "
                    + info.getMessageImprintAlgOID().getId() + ")", Rfc3161.HASH_ALGORITHM.getId(),
                    info.getMessageImprintAlgOID().getId());
        }
        if (!MessageDigest.isEqual(expectedRoot, info.getMessageImprintDigest())) {
            return new TimestampFailure(TimestampCheck.MESSAGE_IMPRINT, "the token stamps " + actual
                    + ", not the recorded root " + HEX.formatHex(expectedRoot), HEX.formatHex(expectedRoot), actual);
        }
        return null;
    }

    private static TimestampFailure chain(X509CertificateHolder signerHolder, List<X509CertificateHolder> pool,
                                          Instant genTime, Collection<X509Certificate> anchors) {
        String expected = "a chain to a trust anchor, every certificate valid at " + genTime;
        if (anchors.isEmpty()) {
            return new TimestampFailure(TimestampCheck.CERTIFICATE_CHAIN, "no trust anchors were given", expected, null);
        }
        try {
            JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
            X509Certificate signer = converter.getCertificate(signerHolder);
            List<X509Certificate> certs = new ArrayList<>();
            for (X509CertificateHolder h : pool) {
                certs.add(converter.getCertificate(h));
            }
            Set<TrustAnchor> trust = new HashSet<>();
            for (X509Certificate a : anchors) {
                trust.add(new TrustAnchor(a, null));
            }
            X509CertSelector target = new X509CertSelector();
            target.setCertificate(signer);
            PKIXBuilderParameters params = new PKIXBuilderParameters(trust, target);
            params.setDate(Date.from(genTime));
            params.setRevocationEnabled(false);
            params.addCertStore(CertStore.getInstance("Collection", new CollectionCertStoreParameters(certs)));
            CertPathBuilder.getInstance("PKIX").build(params);
            return null;
        } catch (CertPathBuilderException e) {
            return explainChain(signerHolder, pool, genTime, expected);
        } catch (Exception e) {
            return new TimestampFailure(TimestampCheck.CERTIFICATE_CHAIN, "the certificate chain cannot be checked: "
                    + e.getMessage(), expected, null);
        }
    }

    /** Walks the chain the TSA sent to say which certificate was out of date, or that it reaches no anchor. */
    private static TimestampFailure explainChain(X509CertificateHolder signer, List<X509CertificateHolder> pool,
                                                 Instant genTime, String expected) {
        Date at = Date.from(genTime);
        X509CertificateHolder current = signer;
        for (int depth = 0; current != null && depth < 16; depth++) {
            if (!current.isValidOn(at)) {
                return new TimestampFailure(TimestampCheck.CERTIFICATE_CHAIN, "certificate " + current.getSubject()
                        + " was not valid at the token's time " + genTime + " (valid " + current.getNotBefore().toInstant()
                        + " to " + current.getNotAfter().toInstant() + ")", expected,
                        "valid " + current.getNotBefore().toInstant() + " to " + current.getNotAfter().toInstant());
            }
            X509CertificateHolder issuer = null;
            if (!current.getIssuer().equals(current.getSubject())) {
                for (X509CertificateHolder c : pool) {
                    if (c.getSubject().equals(current.getIssuer())) {
                        issuer = c;
                    }
                }
            }
            if (issuer == null) {
                return new TimestampFailure(TimestampCheck.CERTIFICATE_CHAIN, "the TSA certificate chain ("
                        + signer.getSubject() + ") ends at " + current.getSubject() + ", issued by "
                        + current.getIssuer() + ", which is not a trust anchor", expected,
                        "chain ending at " + current.getIssuer());
            }
            current = issuer;
        }
        return new TimestampFailure(TimestampCheck.CERTIFICATE_CHAIN, "the TSA certificate chain of " + signer.getSubject()
                + " does not validate to a trust anchor at " + genTime, expected, null);
    }
}
