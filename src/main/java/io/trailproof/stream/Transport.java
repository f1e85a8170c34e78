package io.trailproof.stream;

/**
 * How a connection writes what its {@link EventBuffer} holds. Every method returns at once (the
 * writing happens on the connection's I/O thread); none may be called before the transport started.
 */
interface Transport {

    /** The buffer has something new (events or an ending): write it when the connection can take it. */
    void wake();

    /** Closes the connection now, whatever is unwritten (a stop that cannot wait any longer). */
    void abort();
}
