package io.trailproof.cli;

import java.util.List;

/**
 * {@code trailproof} itself: its subcommands are the commands. Run without one, it prints its help
 * (the list of commands) on the error stream and exits 0.
 */
final class RootCommand implements CliCommand {

    static final String NAME = "trailproof";
    static final String VERSION = "trailproof 0.1.0";

    private final List<CliCommand> commands;

    RootCommand(List<CliCommand> commands) {
        this.commands = commands;
    }

    @Override
    public CommandSpec spec() {
        CommandSpec spec = new CommandSpec(NAME, "Tamper-evident audit trail for AI agents.");
        for (CliCommand command : commands) {
            spec.subcommand(command);
        }
        return spec;
    }

    @Override
    public int run(Arguments args, Streams io) {
        io.err().print(HelpText.render(spec(), NAME));
        io.err().flush();
        return 0;
    }
}
