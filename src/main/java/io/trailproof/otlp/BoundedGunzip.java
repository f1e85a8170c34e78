package io.trailproof.otlp;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.zip.GZIPInputStream;

/**
 * Inflates a gzip body ({@code Content-Encoding: gzip}) within the body limit, which src/site/ingestion.md#otlp
 * applies to the decompressed size. The output is read in small steps and refused as soon as it
 * passes the limit, so a gzip bomb (a few KB that expand to gigabytes) costs at most the limit in
 * memory and the time to inflate that much, never its expanded size.
 */
public final class BoundedGunzip {

    /** The decompressed body would pass the limit. */
    public static final class TooLarge extends Exception {
        private static final long serialVersionUID = 1L;

        TooLarge(String message) {
            super(message, null, false, false);
        }
    }

    private static final int STEP = 64 * 1024;

    private BoundedGunzip() {
    }

    /**
     * The decompressed bytes of {@code gzip}, at most {@code limit} of them.
     *
     * @throws TooLarge when the decompressed body is longer than {@code limit}
     * @throws UndecodableBody when {@code gzip} is not a complete gzip stream
     */
    public static byte[] inflate(byte[] gzip, long limit) throws TooLarge, UndecodableBody {
        ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.min(limit, Math.max(STEP, 4L * gzip.length)));
        byte[] step = new byte[STEP];
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gzip), STEP)) {
            long total = 0;
            int n;
            while ((n = in.read(step)) > 0) {
                total += n;
                if (total > limit) {
                    throw new TooLarge("the request body decompresses to more than the limit of " + limit
                            + " bytes; send smaller exports");
                }
                out.write(step, 0, n);
            }
        } catch (IOException e) {
            throw new UndecodableBody("the body is not valid gzip (Content-Encoding: gzip): " + e.getMessage());
        }
        return out.toByteArray();
    }
}
