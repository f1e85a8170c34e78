package io.trailproof.http;

import io.undertow.server.HttpServerExchange;
import io.undertow.server.RequestTooBigException;
import io.undertow.util.Headers;

import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;

/**
 * Reads request bodies: JSON only (415 otherwise), and never more than the configured limit (413);
 * a declared length over the limit is refused before anything is read.
 */
final class RequestBodies {

    private final long maxBodyBytes;

    RequestBodies(long maxBodyBytes) {
        this.maxBodyBytes = maxBodyBytes;
    }

    byte[] read(HttpServerExchange ex) throws ApiException, IOException {
        String type = ex.getRequestHeaders().getFirst(Headers.CONTENT_TYPE);
        if (type == null || !isJson(type)) {
            throw new ApiException(415, "the body must be JSON: send Content-Type: application/json");
        }
        long declared = ex.getRequestContentLength();
        if (declared > maxBodyBytes) {
            throw tooLarge();
        }
        ex.setMaxEntitySize(maxBodyBytes);
        try (InputStream in = ex.getInputStream()) {
            byte[] body = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBodyBytes + 1));
            if (body.length > maxBodyBytes) {
                throw tooLarge();
            }
            return body;
        } catch (RequestTooBigException e) {
            throw tooLarge();
        }
    }

    private ApiException tooLarge() {
        return new ApiException(413, "the request body is larger than the limit of " + maxBodyBytes + " bytes");
    }

    private static boolean isJson(String contentType) {
        String t = contentType.toLowerCase(Locale.ROOT).trim();
        int semicolon = t.indexOf(';');
        String media = (semicolon < 0 ? t : t.substring(0, semicolon)).trim();
        if (!media.equals("application/json")) {
            return false;
        }
        if (semicolon >= 0) {
            String params = t.substring(semicolon + 1).replace(" ", "");
            return !params.startsWith("charset=") || params.startsWith("charset=utf-8");
        }
        return true;
    }
}
