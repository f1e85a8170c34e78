package io.trailproof.mcp;

import java.io.IOException;
import java.io.OutputStream;

/**
 * The client's side of the session when the proxy also writes answers of its own (the gate's refusals):
 * the server's bytes pass through unchanged, and an answer of the proxy is written only between two of
 * the server's lines, never inside one. Writes are serialised on this object.
 */
final class ClientOutput extends OutputStream {

    private final OutputStream out;
    private boolean atLineStart = true;

    ClientOutput(OutputStream out) {
        this.out = out;
    }

    @Override
    public synchronized void write(int b) throws IOException {
        out.write(b);
        atLineStart = b == '\n';
        notifyAll();
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) throws IOException {
        out.write(b, off, len);
        if (len > 0) {
            atLineStart = b[off + len - 1] == '\n';
            notifyAll();
        }
    }

    @Override
    public synchronized void flush() throws IOException {
        out.flush();
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }

    /**
     * Writes one whole line of the proxy's own (ending in {@code \n}) once the server's output is at the
     * start of a line, and flushes it.
     */
    synchronized void writeLine(byte[] line) throws IOException, InterruptedException {
        while (!atLineStart) {
            wait();
        }
        out.write(line);
        out.flush();
    }
}
