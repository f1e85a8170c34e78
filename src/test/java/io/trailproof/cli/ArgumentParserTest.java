package io.trailproof.cli;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The command-line parser on a command of every option kind: values, defaults, mistakes, {@code --}, help. */
class ArgumentParserTest {

    static final OptionSpec NAME = OptionSpec.text("N", "A name.", "-n", "--name").required();
    static final OptionSpec COUNT = OptionSpec.value(ValueType.INT, "C", "A count.", "--count").defaultValue("3");
    static final OptionSpec SIZE = OptionSpec.value(ValueType.LONG, "S", "A size.", "--size");
    static final OptionSpec FILE = OptionSpec.value(ValueType.PATH, "F", "A file.", "-f", "--file");
    static final OptionSpec TAG = OptionSpec.text("T", "A tag, repeatable.", "--tag").repeatable();
    static final OptionSpec IDS = OptionSpec.text("ID", "Ids, comma-separated.", "--ids").split(",");
    static final OptionSpec LABEL = OptionSpec.value(ValueType.KEY_VALUE, "K=V", "A label.", "--label").repeatable();
    static final OptionSpec SET = OptionSpec.value(ValueType.KEY_VALUE, "K=V", "A setting.", "--set").repeatable()
            .keyOnlyValue("");
    static final OptionSpec LOUD = OptionSpec.flag("Loudly.", "--loud");
    static final ParameterSpec INPUT = ParameterSpec.required(ValueType.PATH, "INPUT", "The input.");
    static final ParameterSpec EXTRA = ParameterSpec.optional(ValueType.TEXT, "EXTRA", "More.");
    static final ParameterSpec COMMAND = ParameterSpec.rest("COMMAND", "A program and its arguments.");

    /** A command that declares every kind; it never runs here. */
    static final class Toy implements CliCommand {
        @Override
        public CommandSpec spec() {
            return new CommandSpec("toy", "A toy command.", "It takes every kind of option.").parameter(INPUT)
                    .parameter(EXTRA).option(NAME).option(COUNT).option(SIZE).option(FILE).option(TAG).option(IDS)
                    .option(LABEL).option(SET).option(LOUD);
        }

        @Override
        public int run(Arguments args, Streams io) {
            return 0;
        }
    }

    /** A command that runs another program: everything from its first parameter on is that program's. */
    static final class Runner implements CliCommand {
        @Override
        public CommandSpec spec() {
            return new CommandSpec("runner", "Runs a program.").option(LOUD).parameter(COMMAND).stopAtPositional();
        }

        @Override
        public int run(Arguments args, Streams io) {
            return 0;
        }
    }

    /** A command with subcommands. */
    static final class Group implements CliCommand {
        @Override
        public CommandSpec spec() {
            return new CommandSpec("group", "Groups two.").subcommand(new Toy()).subcommand(new Runner());
        }

        @Override
        public int run(Arguments args, Streams io) {
            return 0;
        }
    }

    static ParsedLine parse(String... args) throws UsageError {
        return ArgumentParser.parse(new RootCommand(List.of(new Toy(), new Runner(), new Group())), args);
    }

    static Arguments toy(String... args) throws UsageError {
        ParsedLine line = parse(args);
        assertThat(line.request()).isEqualTo(ParsedLine.Request.RUN);
        assertThat(line.qualifiedName()).isEqualTo("trailproof toy");
        return line.arguments();
    }

    static String mistake(String... args) {
        try {
            parse(args);
        } catch (UsageError e) {
            return e.command() + ": " + e.getMessage();
        }
        throw new AssertionError("no usage error for " + List.of(args));
    }

    @Test
    void everyKindOfValueInBothForms() throws Exception {
        Arguments a = toy("toy", "in.txt", "--name=ann", "--count", "7", "--size=-5", "-f", "out.bin", "--tag", "a",
                "--tag=b", "--ids", "1,2", "--ids=3", "--label", "k=v", "--label", "k=w", "--label", "x=a=b",
                "--set", "flag", "--loud", "more");
        assertThat(a.path(INPUT)).isEqualTo(Path.of("in.txt"));
        assertThat(a.text(EXTRA)).isEqualTo("more");
        assertThat(a.text(NAME)).isEqualTo("ann");
        assertThat(a.integer(COUNT)).isEqualTo(7);
        assertThat(a.longValue(SIZE)).isEqualTo(-5L);
        assertThat(a.path(FILE)).isEqualTo(Path.of("out.bin"));
        assertThat(a.texts(TAG)).containsExactly("a", "b");
        assertThat(a.texts(IDS)).containsExactly("1", "2", "3");
        assertThat(a.map(LABEL)).containsExactly(Map.entry("k", "w"), Map.entry("x", "a=b"));
        assertThat(a.map(SET)).containsExactly(Map.entry("flag", ""));
        assertThat(a.flag(LOUD)).isTrue();
    }

    @Test
    void defaultsAndAbsentValues() throws Exception {
        Arguments a = toy("toy", "-n", "bob", "in.txt");
        assertThat(a.integer(COUNT)).isEqualTo(3);
        assertThat(a.longValue(SIZE)).isNull();
        assertThat(a.text(EXTRA)).isNull();
        assertThat(a.texts(TAG)).isNull();
        assertThat(a.map(LABEL)).isNull();
        assertThat(a.flag(LOUD)).isFalse();
        assertThat(toy("toy", "-nbob", "-fx", "in").path(FILE)).isEqualTo(Path.of("x"));
        assertThat(toy("toy", "-n", "bob", "in", "--loud=true").flag(LOUD)).isTrue();
        assertThat(toy("toy", "-n", "bob", "in", "--loud=false").flag(LOUD)).isFalse();
    }

    @Test
    void doubleDashEndsTheOptions() throws Exception {
        Arguments a = toy("toy", "--name", "x", "--", "--in", "-extra");
        assertThat(a.path(INPUT)).isEqualTo(Path.of("--in"));
        assertThat(a.text(EXTRA)).isEqualTo("-extra");
        assertThat(toy("toy", "--name", "-x", "in").text(NAME)).as("a value may start with '-'").isEqualTo("-x");
    }

    @Test
    void aCommandThatStopsAtItsFirstParameterPassesTheRestOn() throws Exception {
        ParsedLine line = parse("runner", "--loud", "npx", "-y", "pkg", "--help", "--", "--loud");
        assertThat(line.request()).isEqualTo(ParsedLine.Request.RUN);
        assertThat(line.arguments().flag(LOUD)).isTrue();
        assertThat(line.arguments().rest(COMMAND)).containsExactly("npx", "-y", "pkg", "--help", "--", "--loud");
        assertThat(parse("runner", "--", "cat").arguments().rest(COMMAND)).containsExactly("cat");
    }

    @Test
    void subcommandsNest() throws Exception {
        ParsedLine line = parse("group", "toy", "in", "--name", "n");
        assertThat(line.qualifiedName()).isEqualTo("trailproof group toy");
        assertThat(line.arguments().text(NAME)).isEqualTo("n");
        assertThat(parse("group").qualifiedName()).isEqualTo("trailproof group");
        assertThat(parse().qualifiedName()).isEqualTo("trailproof");
    }

    @Test
    void helpAndVersionAnswerWhateverElseIsGiven() throws Exception {
        assertThat(parse("--help").request()).isEqualTo(ParsedLine.Request.HELP);
        assertThat(parse("-V").request()).isEqualTo(ParsedLine.Request.VERSION);
        ParsedLine help = parse("group", "toy", "-h");
        assertThat(help.request()).isEqualTo(ParsedLine.Request.HELP);
        assertThat(help.qualifiedName()).isEqualTo("trailproof group toy");
        assertThat(parse("toy", "--bogus", "--help").request()).as("a mistake before --help").isEqualTo(ParsedLine.Request.HELP);
        assertThat(parse("toy", "--help", "--bogus").request()).isEqualTo(ParsedLine.Request.HELP);
        assertThat(parse("toy", "--version").request()).isEqualTo(ParsedLine.Request.VERSION);
    }

    @Test
    void everyMistakeIsSaidWithTheCommandItWasMadeIn() {
        assertThat(mistake("toy", "in")).isEqualTo("trailproof toy: missing required option '--name=N'");
        assertThat(mistake("toy", "--name", "n")).isEqualTo("trailproof toy: missing required parameter 'INPUT'");
        assertThat(mistake("toy", "in", "--name")).isEqualTo("trailproof toy: option '--name' needs a value (N)");
        assertThat(mistake("toy", "in", "--name", "--loud")).isEqualTo("trailproof toy: option '--name' needs a value (N)");
        assertThat(mistake("toy", "in", "-n", "a", "--name", "b"))
                .isEqualTo("trailproof toy: option '--name' was given more than once");
        assertThat(mistake("toy", "in", "-n", "a", "--count", "x"))
                .isEqualTo("trailproof toy: invalid value for option '--count': 'x' is not a whole number");
        assertThat(mistake("toy", "in", "-n", "a", "--size", "1.5"))
                .isEqualTo("trailproof toy: invalid value for option '--size': '1.5' is not a whole number");
        assertThat(mistake("toy", "in", "-n", "a", "--file", "a\0b")).startsWith(
                "trailproof toy: invalid value for option '--file': 'a\0b' is not a file path");
        assertThat(mistake("toy", "in", "-n", "a", "--label", "novalue"))
                .isEqualTo("trailproof toy: invalid value for option '--label': 'novalue' is not KEY=VALUE");
        assertThat(mistake("toy", "in", "-n", "a", "--loud=yes"))
                .isEqualTo("trailproof toy: option '--loud' takes no value (or true or false), not 'yes'");
        assertThat(mistake("toy", "in", "-n", "a", "--lowd")).isEqualTo("trailproof toy: unknown option '--lowd' "
                + "(did you mean '--loud'?)");
        assertThat(mistake("toy", "in", "-n", "a", "-z"))
                .isEqualTo("trailproof toy: unknown option '-z' (a parameter that starts with '-' goes after '--')");
        assertThat(mistake("toy", "in", "x", "y", "-n", "a"))
                .isEqualTo("trailproof toy: unexpected argument 'y' (this command takes INPUT EXTRA)");
        assertThat(mistake("tyo")).isEqualTo("trailproof: 'tyo' is not a command of trailproof (did you mean 'toy'?)");
        assertThat(mistake("group", "nothing")).isEqualTo("trailproof group: 'nothing' is not a command of "
                + "trailproof group (its commands: toy, runner)");
        assertThat(mistake("group", "--loud")).isEqualTo("trailproof group: unknown option '--loud'");
    }

    @Test
    void theHelpListsEveryOptionParameterAndSubcommand() {
        String help = HelpText.render(new Toy().spec(), "trailproof toy");
        assertThat(help).startsWith("Usage: trailproof toy [-hV] --name=N [--count=C] [--size=S] [--file=F]\n")
                .contains("[--loud] INPUT [EXTRA]\n", "[--tag=T]...", "[--ids=ID[,ID...]]...", "A toy command.\nIt takes every kind of option.\n")
                .contains("\n      INPUT                 The input.\n")
                .contains("\n  -n, --name=N              A name.\n")
                .contains("\n      --ids=ID[,ID...]      Ids, comma-separated.\n")
                .contains("\n  -h, --help                Show this help message and exit.\n")
                .contains("\n  -V, --version             Print version information and exit.\n");
        assertThat(help.lines()).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(HelpText.WIDTH));
        String group = HelpText.render(new Group().spec(), "trailproof group");
        assertThat(group).contains("Usage: trailproof group [-hV] [COMMAND]\n", "Commands:\n  toy     A toy command.\n",
                "  runner  Runs a program.\n");
    }

    @Test
    void aLongDescriptionWrapsUnderItsColumn() {
        OptionSpec wordy = OptionSpec.text("A-LONG-LABEL", "word ".repeat(30).trim(), "--a-rather-long-option");
        String help = HelpText.render(new CommandSpec("w", "W.").option(wordy), "trailproof w");
        assertThat(help).contains("      --a-rather-long-option=A-LONG-LABEL\n                            word word");
        assertThat(help.lines()).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(HelpText.WIDTH));
    }
}
