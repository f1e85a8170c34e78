package io.trailproof.cli;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * src/site/cli.md and the commands agree: every command is in its table, and every option its usage
 * blocks show for a command (or subcommand) is one that command takes.
 */
class CliDocTest {

    private static final Pattern OPTION = Pattern.compile("(?<![\\w|-])(--?[a-zA-Z][\\w-]*)");

    @Test
    void everyCommandIsListedAndEveryOptionShownExists() throws Exception {
        String doc = Files.readString(Path.of("src/site/cli.md"));
        Commands commands = new Commands();
        for (String name : Commands.NAMES) {
            assertThat(doc.lines().filter(l -> l.startsWith("| ") && l.contains("`" + name)).toList()).as(name)
                    .isNotEmpty();
        }
        List<String> checked = new ArrayList<>();
        boolean inBlock = false;
        CommandSpec spec = null;
        for (String line : doc.lines().toList()) {
            if (line.startsWith("```")) {
                inBlock = !inBlock;
                spec = null;
                continue;
            }
            int comment = line.indexOf(" #");
            String usage = (comment < 0 ? line : line.substring(0, comment)).strip();
            if (!inBlock) {
                continue;
            }
            if (usage.startsWith("trailproof ")) {
                String[] words = usage.split("\\s+");
                CliCommand command = commands.create(words[1]);
                assertThat(command).as(usage).isNotNull();
                spec = command.spec();
                if (words.length > 2) {
                    for (CliCommand sub : spec.subcommands()) {
                        if (sub.spec().name().equals(words[2])) {
                            spec = sub.spec();
                        }
                    }
                }
            }
            if (spec == null) {
                continue; // a block of something else than the command line
            }
            Matcher m = OPTION.matcher(usage);
            while (m.find()) {
                assertThat(spec.findOption(m.group(1))).as(line + ": " + m.group(1)).isNotNull();
                checked.add(m.group(1));
            }
        }
        assertThat(checked).hasSizeGreaterThan(50);
    }
}
