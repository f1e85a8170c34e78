package io.trailproof.cli;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code trailproof --help} lists every command with its whole summary (src/site/cli.md), and running
 * a command makes only that command.
 */
class MainHelpTest {

    record Run(int exit, String out, String err) {
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.run(new Commands(), new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Run(exit, out.toString(), err.toString());
    }

    private static List<String> names(CommandSpec spec) {
        List<String> names = new ArrayList<>();
        for (CliCommand c : spec.subcommands()) {
            names.add(c.spec().name());
        }
        return names;
    }

    @Test
    void everyCommandsSummaryInTheListIsAWholeSentence() {
        Run r = run("--help");
        assertThat(r.exit()).isZero();
        String help = r.out();
        List<String> summaries = new ArrayList<>();
        StringBuilder current = null;
        boolean inCommands = false;
        for (String line : help.lines().toList()) {
            if (line.startsWith("Commands:")) {
                inCommands = true;
            } else if (inCommands && line.matches("  \\S.*")) {
                if (current != null) {
                    summaries.add(current.toString());
                }
                current = new StringBuilder(line.trim());
            } else if (inCommands && current != null && line.startsWith("   ")) {
                current.append(' ').append(line.trim());
            }
        }
        if (current != null) {
            summaries.add(current.toString());
        }
        assertThat(summaries).hasSize(Commands.NAMES.size());
        assertThat(summaries).allSatisfy(s -> assertThat(s).as(help).endsWith("."));
        assertThat(summaries).anySatisfy(s -> assertThat(s).startsWith("timestamp ")
                .contains("RFC 3161 TSA, or list (--list) or verify (--verify) the stored timestamps."));
    }

    @Test
    void aCommandLineForOneCommandHoldsOnlyItAndAnyOtherHoldsThemAll() {
        Commands commands = new Commands();
        assertThat(names(commands.root("verify-export", "file.json").spec())).containsExactly("verify-export");
        CommandSpec index = commands.root("index", "rebuild").spec().subcommands().get(0).spec();
        assertThat(names(index)).containsExactly("rebuild", "check");
        List<String> all = names(commands.root().spec());
        assertThat(all).isEqualTo(Commands.NAMES).startsWith("serve", "ingest", "search");
        for (String[] args : List.of(new String[0], new String[] {"--help"}, new String[] {"--version"},
                new String[] {"verfy-export"}, new String[] {"-x", "serve"})) {
            assertThat(names(commands.root(args).spec())).as(String.join(" ", args)).isEqualTo(all);
        }
    }

    @Test
    void aMistypedCommandIsBadUsageWithAPointerToTheHelp() {
        Run r = run("verfy-export", "x.json");
        assertThat(r.exit()).isEqualTo(Main.BAD_USAGE);
        assertThat(r.err()).contains("'verfy-export'", "did you mean 'verify-export'?", "Try 'trailproof --help'");
    }

    @Test
    void everyCommandHasHelpAndTheVersion() {
        for (String name : Commands.NAMES) {
            Run help = run(name, "--help");
            assertThat(help.exit()).as(name).isZero();
            assertThat(help.out()).as(name).startsWith("Usage: trailproof " + name + " ").contains("-h, --help");
            Run version = run(name, "-V");
            assertThat(version.out()).as(name).isEqualTo("trailproof 0.1.0" + System.lineSeparator());
        }
    }
}
