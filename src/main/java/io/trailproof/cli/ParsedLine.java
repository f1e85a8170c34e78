package io.trailproof.cli;

/**
 * A parsed command line: the command it names (the deepest subcommand), that command's whole name
 * ({@code trailproof policy check}) and spec, and either its {@link Arguments} or the help or the
 * version it asked for instead.
 */
final class ParsedLine {

    /** What the command line asks for. */
    enum Request { RUN, HELP, VERSION }

    private final CliCommand command;
    private final CommandSpec spec;
    private final String qualifiedName;
    private final Arguments arguments;
    private final Request request;

    ParsedLine(CliCommand command, CommandSpec spec, String qualifiedName, Arguments arguments, Request request) {
        this.command = command;
        this.spec = spec;
        this.qualifiedName = qualifiedName;
        this.arguments = arguments;
        this.request = request;
    }

    CliCommand command() {
        return command;
    }

    CommandSpec spec() {
        return spec;
    }

    String qualifiedName() {
        return qualifiedName;
    }

    Arguments arguments() {
        return arguments;
    }

    Request request() {
        return request;
    }
}
