package io.trailproof.core.timestamp;

import java.util.Locale;

/** The checks of a timestamp's verification (src/site/timestamps.md#verification), in the order they are reported. */
public enum TimestampCheck {
    /** The CMS signature verifies with the signer certificate, the certificate is bound by ESSCertID(v2), and its extended key usage is timeStamping, critical. */
    SIGNATURE,
    /** The token's message imprint is the stamped root (and, on the server, the root recomputed today). */
    MESSAGE_IMPRINT,
    /** The signer's chain validates (PKIX) to a trust anchor at the token's genTime. */
    CERTIFICATE_CHAIN,
    /** The later tree extends the stamped one (RFC 9162 consistency proof). */
    CONSISTENCY;

    /** The name used in JSON answers and messages, e.g. {@code message_imprint}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
