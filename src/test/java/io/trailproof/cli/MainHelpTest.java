package io.trailproof.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code trailproof --help} lists every command with its whole summary (src/site/cli.md), and running
 * a command builds only that command's model.
 */
class MainHelpTest {

    @Test
    void everyCommandsSummaryInTheListIsAWholeSentence() {
        StringWriter out = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out, true));
        assertThat(cli.execute("--help")).isZero();
        String help = out.toString();
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
        assertThat(summaries).hasSize(cli.getSubcommands().size());
        assertThat(summaries).allSatisfy(s -> assertThat(s).as(help).endsWith("."));
        assertThat(summaries).anySatisfy(s -> assertThat(s).startsWith("timestamp ")
                .contains("RFC 3161 TSA, or list (--list) or verify (--verify) the stored timestamps."));
    }

    @Test
    void aCommandLineForOneCommandHoldsOnlyItAndAnyOtherHoldsThemAll() {
        CommandLine.IFactory factory = CommandLine.defaultFactory();
        assertThat(Main.commandLine(factory, "verify-export", "file.json").getSubcommands()).containsOnlyKeys("verify-export");
        assertThat(Main.commandLine(factory, "index", "rebuild").getSubcommands().get("index").getSubcommands())
                .containsOnlyKeys("rebuild", "check");
        List<String> all = Main.commandLine().getSubcommands().keySet().stream().toList();
        assertThat(all).hasSize(Main.COMMANDS.size()).startsWith("serve", "ingest", "search");
        for (String[] args : List.of(new String[0], new String[] {"--help"}, new String[] {"--version"},
                new String[] {"verfy-export"}, new String[] {"-x", "serve"})) {
            assertThat(Main.commandLine(factory, args).getSubcommands().keySet()).as(String.join(" ", args))
                    .containsExactlyElementsOf(all);
        }
    }

    @Test
    void aMistypedCommandIsBadUsageWithAPointerToTheHelp() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.run(CommandLine.defaultFactory(), new PrintWriter(out, true), new PrintWriter(err, true),
                "verfy-export", "x.json");
        assertThat(exit).isEqualTo(Main.BAD_USAGE);
        assertThat(err.toString()).contains("'verfy-export'", "Try 'trailproof --help'");
    }
}
