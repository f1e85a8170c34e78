package io.trailproof.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * A command's help, as {@code --help} prints it: the usage line (every option and parameter in the
 * order declared, {@code [optional]}, {@code ...} when repeatable), the description, then one row per
 * parameter, option and subcommand with its description beside it, all wrapped to
 * {@value #WIDTH} columns. A subcommand's row holds its summary, the first paragraph of its description.
 */
final class HelpText {

    static final int WIDTH = 80;
    /** Where the descriptions of the rows start; a longer name puts its description on the next line. */
    private static final int DESCRIPTION_COLUMN = 28;

    private HelpText() {
    }

    /** The whole help of {@code spec}, whose whole name is {@code qualifiedName} ({@code trailproof policy check}). */
    static String render(CommandSpec spec, String qualifiedName) {
        StringBuilder help = new StringBuilder();
        usage(help, spec, qualifiedName);
        for (String paragraph : spec.description()) {
            wrap(help, paragraph, 0, 0);
        }
        for (ParameterSpec p : spec.parameters()) {
            row(help, "      " + p.label() + (p.isRest() ? "..." : ""), p.description(), DESCRIPTION_COLUMN);
        }
        for (OptionSpec o : spec.options()) {
            row(help, names(o), o.description(), DESCRIPTION_COLUMN);
        }
        row(help, names(CommandSpec.HELP), CommandSpec.HELP.description(), DESCRIPTION_COLUMN);
        row(help, names(CommandSpec.VERSION), CommandSpec.VERSION.description(), DESCRIPTION_COLUMN);
        if (!spec.subcommands().isEmpty()) {
            help.append("Commands:\n");
            int column = 0;
            List<CommandSpec> subs = new ArrayList<>();
            for (CliCommand sub : spec.subcommands()) {
                CommandSpec s = sub.spec();
                subs.add(s);
                column = Math.max(column, s.name().length() + 4);
            }
            for (CommandSpec s : subs) {
                row(help, "  " + s.name(), s.summary(), column);
            }
        }
        return help.toString();
    }

    /** An option as the usage line and messages show it: {@code --agent-id=A}, {@code --event=ID[,ID...]}. */
    static String synopsis(OptionSpec option) {
        StringBuilder s = new StringBuilder(option.longName());
        if (!option.isFlag()) {
            s.append('=').append(option.label());
            if (option.split() != null) {
                s.append('[').append(option.split()).append(option.label()).append("...]");
            }
        }
        return s.toString();
    }

    private static void usage(StringBuilder help, CommandSpec spec, String qualifiedName) {
        List<String> words = new ArrayList<>();
        words.add("[-hV]");
        for (OptionSpec o : spec.options()) {
            String word = o.isRequired() ? synopsis(o) : "[" + synopsis(o) + "]";
            words.add(o.isRepeatable() ? word + "..." : word);
        }
        for (ParameterSpec p : spec.parameters()) {
            String word = p.isRest() ? p.label() + "..." : p.label();
            words.add(p.isRequired() ? word : "[" + word + "]");
        }
        if (!spec.subcommands().isEmpty()) {
            words.add("[COMMAND]");
        }
        String start = "Usage: " + qualifiedName + " ";
        StringBuilder line = new StringBuilder(start);
        int indent = start.length() > WIDTH / 2 ? 8 : start.length();
        boolean first = true;
        for (String word : words) {
            if (!first && line.length() + word.length() + 1 > WIDTH) {
                help.append(line).append('\n');
                line.setLength(0);
                line.append(" ".repeat(indent));
                first = true;
            }
            line.append(first ? "" : " ").append(word);
            first = false;
        }
        help.append(line).append('\n');
    }

    /** {@code -o, --output=FILE} or {@code       --json}: short names in a column of their own. */
    private static String names(OptionSpec option) {
        List<String> names = new ArrayList<>();
        for (String n : option.names()) {
            if (n.length() == 2) {
                names.add(0, n);
            } else {
                names.add(n);
            }
        }
        StringBuilder s = new StringBuilder(names.get(0).length() == 2 ? "  " : "      ");
        for (int i = 0; i < names.size(); i++) {
            s.append(i == 0 ? "" : ", ").append(names.get(i));
        }
        if (!option.isFlag()) {
            s.append('=').append(option.label());
            if (option.split() != null) {
                s.append('[').append(option.split()).append(option.label()).append("...]");
            }
        }
        return s.toString();
    }

    /** {@code left}, then {@code description} wrapped from {@code column} on (continuations two further in). */
    private static void row(StringBuilder help, String left, String description, int column) {
        help.append(left);
        if (left.length() + 1 > column) {
            help.append('\n').append(" ".repeat(column));
        } else {
            help.append(" ".repeat(column - left.length()));
        }
        wrap(help, description, column, column + 2);
    }

    /** Appends {@code text} word by word, lines ending before {@link #WIDTH}; the first line is already indented. */
    private static void wrap(StringBuilder help, String text, int firstIndent, int indent) {
        int length = firstIndent;
        boolean lineEmpty = true;
        int from = 0;
        while (from < text.length()) {
            int space = text.indexOf(' ', from);
            int end = space < 0 ? text.length() : space;
            int wordLength = end - from;
            if (!lineEmpty && length + 1 + wordLength > WIDTH) {
                help.append('\n').append(" ".repeat(indent));
                length = indent;
                lineEmpty = true;
            }
            if (!lineEmpty) {
                help.append(' ');
                length++;
            }
            help.append(text, from, end);
            length += wordLength;
            lineEmpty = false;
            from = end + 1;
        }
        help.append('\n');
    }
}
