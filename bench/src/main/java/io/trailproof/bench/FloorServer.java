package io.trailproof.bench;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;

/**
 * The latency floor of this machine for the neutral rows: an HTTP/1.1 keep-alive server
 * that does nothing but write a fixed answer of the size of {@code GET /v1/merkle/root}'s, from one
 * thread and one selector, for every request (a blank line ends each; bodies are not expected). Under
 * the same wrk at the same connection count it shows what the kernel, the loopback and the scheduler
 * of these 2 cores cost a request before any server does any work: a p99 the floor itself misses is
 * not a goal any server can meet here at that minute.
 */
final class FloorServer implements Closeable {

    static final byte[] BODY = ("{\"root\":\"12f333189ca33be3d89d7c102ec15e6240ed70df6a55bd05f063e3f95032a670\","
            + "\"tree_size\":1000000}").getBytes(StandardCharsets.US_ASCII);

    private final Selector selector;
    private final ServerSocketChannel listener;
    private final Thread thread;

    FloorServer() throws IOException {
        selector = Selector.open();
        listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        listener.configureBlocking(false);
        listener.register(selector, SelectionKey.OP_ACCEPT);
        thread = new Thread(this::serve, "floor-server");
        thread.setDaemon(true);
        thread.start();
    }

    int port() throws IOException {
        return ((InetSocketAddress) listener.getLocalAddress()).getPort();
    }

    private void serve() {
        byte[] head = ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + BODY.length + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        ByteBuffer answer = ByteBuffer.allocateDirect(head.length + BODY.length).put(head).put(BODY).flip();
        ByteBuffer in = ByteBuffer.allocateDirect(64 * 1024);
        try {
            while (selector.isOpen()) {
                selector.select();
                Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
                while (keys.hasNext()) {
                    SelectionKey key = keys.next();
                    keys.remove();
                    if (key.isAcceptable()) {
                        SocketChannel c = listener.accept();
                        if (c != null) {
                            c.configureBlocking(false);
                            c.setOption(StandardSocketOptions.TCP_NODELAY, true);
                            c.register(selector, SelectionKey.OP_READ, new int[1]);
                        }
                        continue;
                    }
                    SocketChannel c = (SocketChannel) key.channel();
                    int read;
                    in.clear();
                    try {
                        read = c.read(in);
                    } catch (IOException e) {
                        read = -1;
                    }
                    if (read < 0) {
                        key.cancel();
                        c.close();
                        continue;
                    }
                    // Counts the requests that ended in what was read: "\r\n\r\n", possibly split across reads.
                    int[] lineEnds = (int[]) key.attachment();
                    int requests = 0;
                    for (int i = 0; i < read; i++) {
                        byte b = in.get(i);
                        lineEnds[0] = b == '\r' || b == '\n' ? lineEnds[0] + 1 : 0;
                        if (lineEnds[0] == 4) {
                            requests++;
                            lineEnds[0] = 0;
                        }
                    }
                    for (int i = 0; i < requests; i++) {
                        ByteBuffer out = answer.duplicate();
                        while (out.hasRemaining()) {
                            c.write(out);
                        }
                    }
                }
            }
        } catch (IOException | ClosedSelectorException e) {
            // closed by close(), or the machine refused a socket: the rows measured so far stand
        }
    }

    @Override
    public void close() throws IOException {
        selector.close();
        listener.close();
    }
}
