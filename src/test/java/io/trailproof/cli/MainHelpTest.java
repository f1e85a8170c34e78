package io.trailproof.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code trailproof --help} lists every command with its whole summary (src/site/cli.md). */
class MainHelpTest {

    @Test
    void everyCommandsSummaryInTheListIsAWholeSentence() {
        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new Main());
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
}
