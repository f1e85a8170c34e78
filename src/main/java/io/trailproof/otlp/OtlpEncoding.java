package io.trailproof.otlp;

import java.util.Locale;

/** The two OTLP/HTTP encodings (src/site/ingestion.md#otlp); an answer is written in the request's. */
public enum OtlpEncoding {
    PROTOBUF("application/x-protobuf"),
    JSON("application/json");

    private final String mediaType;

    OtlpEncoding(String mediaType) {
        this.mediaType = mediaType;
    }

    public String mediaType() {
        return mediaType;
    }

    /**
     * The encoding a {@code Content-Type} names, parameters aside (JSON only as UTF-8), or null for
     * any other type.
     */
    public static OtlpEncoding ofContentType(String contentType) {
        if (contentType == null) {
            return null;
        }
        String t = contentType.toLowerCase(Locale.ROOT);
        int semicolon = t.indexOf(';');
        String media = (semicolon < 0 ? t : t.substring(0, semicolon)).trim();
        if (media.equals(PROTOBUF.mediaType)) {
            return PROTOBUF;
        }
        if (media.equals(JSON.mediaType)) {
            String params = semicolon < 0 ? "" : t.substring(semicolon + 1).replace(" ", "");
            return !params.startsWith("charset=") || params.startsWith("charset=utf-8") ? JSON : null;
        }
        return null;
    }
}
