package io.trailproof.core.timestamp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;

/**
 * A stored RFC 3161 timestamp of a tree root, in the one JSON shape of src/site/timestamps.md#record. The server
 * stores and serves it in this shape and an evidence package embeds it, so the offline verifier
 * reads what the server wrote with the same code.
 *
 * @param merkleRoot   lowercase hex of the stamped root
 * @param tsa          the host of {@code tsaUrl}
 * @param timestamp    the token's genTime, RFC 3339
 * @param requestedAt  the service's clock when it sent the request, RFC 3339
 * @param serialNumber the token's serial number, lowercase hex
 * @param policy       the token's policy, dotted OID
 * @param nonce        the request's nonce as echoed in the token, lowercase hex
 * @param token        base64 DER of the TimeStampToken (CMS ContentInfo)
 * @param certificates base64 DER certificates, signer first, as many of the chain as the TSA sent
 */
public record TimestampRecord(String id, String merkleRoot, long treeSize, String tsa, String tsaUrl,
                              String timestamp, String requestedAt, String serialNumber, String policy,
                              String hashAlgorithm, String nonce, String token, List<String> certificates) {

    public static final String ID = "id";
    public static final String MERKLE_ROOT = "merkle_root";
    public static final String TREE_SIZE = "tree_size";
    public static final String TSA = "tsa";
    public static final String TSA_URL = "tsa_url";
    public static final String TIMESTAMP = "timestamp";
    public static final String REQUESTED_AT = "requested_at";
    public static final String SERIAL_NUMBER = "serial_number";
    public static final String POLICY = "policy";
    public static final String HASH_ALGORITHM = "hash_algorithm";
    public static final String NONCE = "nonce";
    public static final String TOKEN = "token";
    public static final String CERTIFICATES = "certificates";

    public TimestampRecord {
        certificates = List.copyOf(certificates);
    }

    public ObjectNode toJson() {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put(ID, id);
        o.put(MERKLE_ROOT, merkleRoot);
        o.put(TREE_SIZE, treeSize);
        o.put(TSA, tsa);
        o.put(TSA_URL, tsaUrl);
        o.put(TIMESTAMP, timestamp);
        o.put(REQUESTED_AT, requestedAt);
        o.put(SERIAL_NUMBER, serialNumber);
        o.put(POLICY, policy);
        o.put(HASH_ALGORITHM, hashAlgorithm);
        o.put(NONCE, nonce);
        o.put(TOKEN, token);
        ArrayNode certs = o.putArray(CERTIFICATES);
        certificates.forEach(certs::add);
        return o;
    }

    /**
     * Reads a record (extra members, such as a package's {@code consistency_proof}, are ignored).
     *
     * @throws IllegalArgumentException naming the first member that is missing or malformed
     */
    public static TimestampRecord fromJson(JsonNode node) {
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException("a timestamp record must be a JSON object");
        }
        String root = text(node, MERKLE_ROOT);
        if (root.length() != 64 || !isLowerHex(root)) {
            throw new IllegalArgumentException(MERKLE_ROOT + " must be 64 lowercase hex digits");
        }
        JsonNode size = node.get(TREE_SIZE);
        if (size == null || !size.canConvertToLong() || !size.isIntegralNumber() || size.longValue() < 1) {
            throw new IllegalArgumentException(TREE_SIZE + " must be a whole number of at least 1");
        }
        String token = text(node, TOKEN);
        base64(token, TOKEN);
        JsonNode certs = node.get(CERTIFICATES);
        if (certs == null || !certs.isArray()) {
            throw new IllegalArgumentException(CERTIFICATES + " must be an array of base64 strings");
        }
        List<String> certificates = new ArrayList<>();
        for (JsonNode c : certs) {
            if (!c.isTextual()) {
                throw new IllegalArgumentException(CERTIFICATES + " must be an array of base64 strings");
            }
            base64(c.textValue(), CERTIFICATES);
            certificates.add(c.textValue());
        }
        return new TimestampRecord(text(node, ID), root, size.longValue(), text(node, TSA), text(node, TSA_URL),
                text(node, TIMESTAMP), text(node, REQUESTED_AT), text(node, SERIAL_NUMBER), text(node, POLICY),
                text(node, HASH_ALGORITHM), text(node, NONCE), token, certificates);
    }

    public byte[] merkleRootBytes() {
        return HexFormat.of().parseHex(merkleRoot);
    }

    public byte[] tokenDer() {
        return Base64.getDecoder().decode(token);
    }

    public List<byte[]> certificateDers() {
        return certificates.stream().map(Base64.getDecoder()::decode).toList();
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        if (v == null || !v.isTextual()) {
            throw new IllegalArgumentException(field + " is missing or not a string");
        }
        return v.textValue();
    }

    private static void base64(String value, String field) {
        try {
            Base64.getDecoder().decode(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(field + " is not valid base64");
        }
    }

    private static boolean isLowerHex(String s) {
        return s.chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
    }
}
