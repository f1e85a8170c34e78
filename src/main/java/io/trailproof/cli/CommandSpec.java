package io.trailproof.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * What a command declares, in a plain table the parser and the help read: its name, its description
 * (the first paragraph is its summary in the list of commands), its options in the order the help
 * lists them, its positional parameters in order, and its subcommands. Every command also takes
 * {@link #HELP} and {@link #VERSION}. Built by the command, one call after another:
 * {@code new CommandSpec("verify", "Re-verify ...").option(AGENT_ID)}.
 */
final class CommandSpec {

    static final OptionSpec HELP = OptionSpec.flag("Show this help message and exit.", "-h", "--help");
    static final OptionSpec VERSION = OptionSpec.flag("Print version information and exit.", "-V", "--version");

    private final String name;
    private final List<String> description = new ArrayList<>();
    private final List<OptionSpec> options = new ArrayList<>();
    private final List<ParameterSpec> parameters = new ArrayList<>();
    private final List<CliCommand> subcommands = new ArrayList<>();
    private boolean stopAtPositional;

    /** A command called {@code name}, with its summary and any further paragraphs of description. */
    CommandSpec(String name, String summary, String... paragraphs) {
        this.name = name;
        description.add(summary);
        description.addAll(List.of(paragraphs));
    }

    CommandSpec option(OptionSpec option) {
        options.add(option);
        return this;
    }

    CommandSpec parameter(ParameterSpec parameter) {
        parameters.add(parameter);
        return this;
    }

    CommandSpec subcommand(CliCommand command) {
        subcommands.add(command);
        return this;
    }

    /**
     * Everything from the first positional argument on is a parameter, options too: a command that
     * runs another program ({@code mcp-proxy npx -y pkg}) passes that program's options on.
     */
    CommandSpec stopAtPositional() {
        stopAtPositional = true;
        return this;
    }

    String name() {
        return name;
    }

    /** The first paragraph of the description. */
    String summary() {
        return description.get(0);
    }

    List<String> description() {
        return description;
    }

    /** The command's own options, without {@link #HELP} and {@link #VERSION}. */
    List<OptionSpec> options() {
        return options;
    }

    List<ParameterSpec> parameters() {
        return parameters;
    }

    List<CliCommand> subcommands() {
        return subcommands;
    }

    boolean stopsAtPositional() {
        return stopAtPositional;
    }

    /** The option of that name, the help and version options included, or null. */
    OptionSpec findOption(String optionName) {
        for (OptionSpec o : options) {
            if (o.hasName(optionName)) {
                return o;
            }
        }
        if (HELP.hasName(optionName)) {
            return HELP;
        }
        return VERSION.hasName(optionName) ? VERSION : null;
    }
}
