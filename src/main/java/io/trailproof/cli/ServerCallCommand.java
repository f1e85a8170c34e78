package io.trailproof.cli;

import java.io.IOException;
import java.io.PrintWriter;

/**
 * A subcommand that sends one request to a running server and prints its answer (src/site/cli.md):
 * what can be checked here is checked before anything is sent; {@code --json} prints the answer as
 * it came, otherwise {@link #print} puts it in words. Exit codes: {@link #exitCode} for an accepted
 * request (0 unless the subcommand says otherwise), {@link Main#BAD_USAGE} for a request malformed by
 * the subcommand's own checks or by the server's (400), 1 for any other refusal and when the server
 * could not be reached. A subcommand declares its own options and then {@link ClientOptions} in its spec,
 * and takes its own values in {@link #read}.
 */
abstract class ServerCallCommand implements CliCommand {

    ClientOptions options;


    /** A request that is malformed before it is sent; its message is for the user. */
    static final class UsageException extends Exception {
        UsageException(String message) {
            super(message);
        }
    }

    /** Takes the values of the subcommand's own options and parameters; none by default. */
    void read(Arguments args) {
    }

    /** Checks what can be checked here and sends the request. */
    abstract ServerClient.Answer send(ServerClient client) throws ServerClient.ClientException, IOException, UsageException;

    /** Puts an accepted answer in words. */
    abstract void print(ServerClient.Answer answer, PrintWriter out) throws ServerClient.ClientException, IOException;

    /** The exit code of an accepted request: 0 unless its answer reports a failure (a failed check). */
    int exitCode(ServerClient.Answer answer) throws ServerClient.ClientException, IOException {
        return 0;
    }

    /**
     * Added to the message when the exchange failed after the request may have reached the server:
     * where to look whether it did. Nothing by default.
     */
    String whereToLookIfItArrived() {
        return "";
    }

    @Override
    public final int run(Arguments args, Streams io) {
        options = ClientOptions.of(args);
        read(args);
        PrintWriter out = io.out();
        PrintWriter err = io.err();
        try {
            ServerClient.Answer answer = send(options.client());
            if (!answer.ok()) {
                return fail(err, answer.error(), answer.status() == 400 ? Main.BAD_USAGE : 1);
            }
            if (options.json) {
                out.println(answer.text());
            } else {
                print(answer, out);
            }
            out.flush();
            return exitCode(answer);
        } catch (UsageException e) {
            return fail(err, e.getMessage(), Main.BAD_USAGE);
        } catch (ServerClient.ClientException e) {
            return fail(err, e.getMessage() + (e.mayHaveArrived() ? whereToLookIfItArrived() : ""), 1);
        } catch (IOException e) {
            return fail(err, e.getMessage(), 1);
        }
    }

    private static int fail(PrintWriter err, String message, int code) {
        err.println("trailproof: " + message);
        err.flush();
        return code;
    }
}
