package io.trailproof.core.timestamp;

import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.nist.NISTObjectIdentifiers;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cms.jcajce.JcaSimpleSignerInfoVerifierBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.tsp.TSPException;
import org.bouncycastle.tsp.TSPUtil;
import org.bouncycastle.tsp.TSPValidationException;
import org.bouncycastle.tsp.TimeStampRequest;
import org.bouncycastle.tsp.TimeStampRequestGenerator;
import org.bouncycastle.tsp.TimeStampResponse;
import org.bouncycastle.tsp.TimeStampToken;
import org.bouncycastle.tsp.TimeStampTokenInfo;
import org.bouncycastle.cms.CMSException;
import org.bouncycastle.cms.CMSSignedData;

import java.io.IOException;
import java.math.BigInteger;
import java.security.cert.CertificateException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * RFC 3161 as this service uses it (src/site/timestamps.md#request), and the only home of its constants: the request
 * it sends, and the rules an answer must pass before anything is stored. Pure: the caller does the
 * HTTP exchange.
 */
public final class Rfc3161 {

    /** The message imprint's hash algorithm: SHA-256 over the 32 raw bytes of the root. */
    public static final ASN1ObjectIdentifier HASH_ALGORITHM = NISTObjectIdentifiers.id_sha256;
    /** {@link #HASH_ALGORITHM} as the record names it (src/site/timestamps.md#record). */
    public static final String HASH_ALGORITHM_NAME = "SHA-256";
    /** Length of the random nonce: 64 bits. */
    public static final int NONCE_BYTES = 8;
    /** RFC 3161 section 3.4 media type of a request. */
    public static final String QUERY_MEDIA_TYPE = "application/timestamp-query";
    /** RFC 3161 section 3.4 media type of an answer. */
    public static final String REPLY_MEDIA_TYPE = "application/timestamp-reply";

    private static final HexFormat HEX = HexFormat.of();

    private Rfc3161() {
    }

    /** An accepted answer: the token's DER, the certificates it carried (signer first) and what it states. */
    public record Accepted(byte[] tokenDer, List<byte[]> certificates, TokenFacts facts) {
    }

    /**
     * The TimeStampReq for a root: SHA-256 imprint of the 32 root bytes, the given nonce (read as an
     * unsigned 64-bit number), {@code certReq} true.
     */
    public static TimeStampRequest request(byte[] root, byte[] nonce) {
        if (root.length != 32 || nonce.length != NONCE_BYTES) {
            throw new IllegalArgumentException("root must be 32 bytes and nonce " + NONCE_BYTES + " bytes");
        }
        TimeStampRequestGenerator generator = new TimeStampRequestGenerator();
        generator.setCertReq(true);
        return generator.generate(HASH_ALGORITHM, root.clone(), new BigInteger(1, nonce));
    }

    /**
     * Accepts an answer only when the status is granted, it carries a token whose imprint and nonce
     * are the request's, the token includes its signer certificate, that certificate is bound to the
     * signature by ESSCertID(v2) and has the critical timeStamping extended key usage, was valid at
     * the token's genTime, and the signature verifies. Whether the chain reaches a trust anchor is not
     * decided here (src/site/timestamps.md#request): verification reports it.
     *
     * @throws TsaAnswerRejected with the first rule the answer breaks
     */
    public static Accepted accept(TimeStampRequest request, byte[] answer) throws TsaAnswerRejected {
        TimeStampResponse response;
        try {
            response = new TimeStampResponse(answer);
        } catch (TSPException | IOException | RuntimeException e) {
            throw TsaAnswerRejected.notAResponse();
        }
        try {
            return check(request, response);
        } catch (RuntimeException e) {
            // BouncyCastle parses parts of a response lazily; a damaged part surfaces here.
            throw new TsaAnswerRejected("the TSA's answer is damaged: " + e.getMessage());
        }
    }

    private static Accepted check(TimeStampRequest request, TimeStampResponse response) throws TsaAnswerRejected {
        int status = response.getStatus();
        if (status != 0 && status != 1) {
            String text = response.getStatusString();
            throw new TsaAnswerRejected("the TSA refused the request (PKIStatus " + status + statusName(status)
                    + (text == null ? "" : ": " + text)
                    + (response.getFailInfo() == null ? "" : ", failure info " + response.getFailInfo().intValue()) + ")");
        }
        TimeStampToken token = response.getTimeStampToken();
        if (token == null) {
            throw new TsaAnswerRejected("the TSA granted the request but sent no time-stamp token");
        }
        TimeStampTokenInfo info = token.getTimeStampInfo();
        if (!HASH_ALGORITHM.equals(info.getMessageImprintAlgOID())
                || !Arrays.equals(request.getMessageImprintDigest(), info.getMessageImprintDigest())) {
            throw new TsaAnswerRejected("the TSA stamped a different message imprint ("
                    + HEX.formatHex(info.getMessageImprintDigest()) + ") than the root sent ("
                    + HEX.formatHex(request.getMessageImprintDigest()) + ")");
        }
        if (info.getNonce() == null || !info.getNonce().equals(request.getNonce())) {
            throw new TsaAnswerRejected("the TSA's answer carries nonce "
                    + (info.getNonce() == null ? "none" : info.getNonce().toString(16)) + " instead of the one sent ("
                    + request.getNonce().toString(16) + "); it does not answer this request");
        }
        try {
            response.validate(request);
        } catch (TSPException e) {
            throw new TsaAnswerRejected("the TSA's answer does not match the request: " + e.getMessage());
        }
        List<X509CertificateHolder> certificates = new ArrayList<>(token.getCertificates().getMatches(null));
        X509CertificateHolder signer = signerOf(token, certificates);
        if (signer == null) {
            throw new TsaAnswerRejected("the TSA's answer does not include its signing certificate, which the request asked for");
        }
        try {
            TSPUtil.validateCertificate(signer);
        } catch (TSPValidationException e) {
            throw new TsaAnswerRejected("the TSA's signing certificate (" + signer.getSubject()
                    + ") is not a time-stamping certificate: its extended key usage must be timeStamping only, marked critical");
        }
        if (!signer.isValidOn(info.getGenTime())) {
            throw new TsaAnswerRejected("the TSA's signing certificate (" + signer.getSubject() + ") was not valid at the "
                    + "token's time " + info.getGenTime().toInstant() + " (valid " + signer.getNotBefore().toInstant()
                    + " to " + signer.getNotAfter().toInstant() + ")");
        }
        try {
            token.validate(new JcaSimpleSignerInfoVerifierBuilder().build(signer));
        } catch (TSPException | OperatorCreationException | CertificateException e) {
            throw new TsaAnswerRejected("the TSA's token does not verify with its signing certificate: " + e.getMessage());
        }
        List<byte[]> ders = new ArrayList<>();
        try {
            ders.add(signer.getEncoded());
            for (X509CertificateHolder c : certificates) {
                if (!c.equals(signer)) {
                    ders.add(c.getEncoded());
                }
            }
            return new Accepted(token.getEncoded(), ders, facts(token, signer));
        } catch (IOException e) {
            throw new TsaAnswerRejected("the TSA's token cannot be re-encoded: " + e.getMessage(), e);
        }
    }

    /** Reads a TimeStampToken from its DER (a CMS ContentInfo). */
    public static TimeStampToken parseToken(byte[] der) throws IOException {
        try {
            return new TimeStampToken(new CMSSignedData(der));
        } catch (CMSException | TSPException | RuntimeException e) {
            throw new IOException("not an RFC 3161 time-stamp token: " + e.getMessage(), e);
        }
    }

    /** The certificate among {@code certificates} that the token names as its signer, or null. */
    static X509CertificateHolder signerOf(TimeStampToken token, List<X509CertificateHolder> certificates) {
        for (X509CertificateHolder c : certificates) {
            if (token.getSID().match(c)) {
                return c;
            }
        }
        return null;
    }

    /** What the token states; the TSA's name from the token, else the signer's subject, else "unnamed". */
    static TokenFacts facts(TimeStampToken token, X509CertificateHolder signer) {
        TimeStampTokenInfo info = token.getTimeStampInfo();
        String name;
        GeneralName tsa = info.getTsa();
        if (tsa != null) {
            name = tsa.getTagNo() == GeneralName.directoryName ? X500Name.getInstance(tsa.getName()).toString()
                    : tsa.getName().toString();
        } else if (signer != null) {
            name = signer.getSubject().toString();
        } else {
            name = "unnamed";
        }
        return new TokenFacts(info.getGenTime().toInstant(), name, info.getSerialNumber().toString(16),
                info.getPolicy().getId(),
                info.getNonce() == null ? null : info.getNonce().toString(16),
                HASH_ALGORITHM.equals(info.getMessageImprintAlgOID()) ? HASH_ALGORITHM_NAME : info.getMessageImprintAlgOID().getId(),
                HEX.formatHex(info.getMessageImprintDigest()));
    }

    private static String statusName(int status) {
        return switch (status) {
            case 2 -> " rejection";
            case 3 -> " waiting";
            case 4 -> " revocationWarning";
            case 5 -> " revocationNotification";
            default -> "";
        };
    }
}
