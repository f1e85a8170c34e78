package io.trailproof.cli;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses a command line against the commands' declared specs (src/site/cli.md):
 * <ul>
 *   <li>the first positional arguments name a command and its subcommands; options follow the
 *       (sub)command they belong to, anywhere among its parameters;</li>
 *   <li>an option's value is the rest of its argument ({@code --port=7600}, {@code -oFILE}) or the
 *       next argument ({@code --port 7600}); a flag takes none, or {@code =true} or {@code =false};</li>
 *   <li>{@code --} ends the options: every later argument is a parameter; so does the first parameter
 *       of a command that {@linkplain CommandSpec#stopAtPositional stops at it};</li>
 *   <li>{@code -h}/{@code --help} and {@code -V}/{@code --version} answer at once; a mistake before
 *       {@code --help} does not keep the help from being shown.</li>
 * </ul>
 * Every mistake is a {@link UsageError} naming the argument and the command it was given to. Plain
 * loops and string building only: no reflection and no lambdas, so that the start cache keeps all
 * of it loaded and linked.
 */
final class ArgumentParser {

    private ArgumentParser() {
    }

    /** Parses {@code args} for {@code root}, the {@code trailproof} command itself. */
    static ParsedLine parse(CliCommand root, String... args) throws UsageError {
        try {
            return parseAll(root, args);
        } catch (Mistake m) {
            if (m.helpLater) {
                return new ParsedLine(m.command, m.spec, m.error.command(), Arguments.none(), ParsedLine.Request.HELP);
            }
            throw m.error;
        }
    }

    /** A usage error, and whether {@code --help} follows it, for the command being parsed when it was found. */
    private static final class Mistake extends Exception {
        final UsageError error;
        final boolean helpLater;
        final CliCommand command;
        final CommandSpec spec;

        Mistake(UsageError error, boolean helpLater, CliCommand command, CommandSpec spec) {
            super(null, null, false, false);
            this.error = error;
            this.helpLater = helpLater;
            this.command = command;
            this.spec = spec;
        }
    }

    private static ParsedLine parseAll(CliCommand root, String... args) throws Mistake {
        CliCommand command = root;
        CommandSpec spec = root.spec();
        String name = spec.name();
        IdentityHashMap<Object, Object> values = new IdentityHashMap<>();
        int parameters = 0;
        boolean onlyParameters = false;
        for (int i = 0; i < args.length; i++) {
            try {
                String arg = args[i];
                if (!onlyParameters && arg.equals("--")) {
                    onlyParameters = true;
                    continue;
                }
                if (!onlyParameters && arg.length() > 1 && arg.charAt(0) == '-') {
                    String optionName = arg;
                    String inline = null;
                    int eq = arg.indexOf('=');
                    if (eq > 0) {
                        optionName = arg.substring(0, eq);
                        inline = arg.substring(eq + 1);
                    }
                    OptionSpec option = spec.findOption(optionName);
                    if (option == null && eq < 0 && arg.charAt(1) != '-' && arg.length() > 2) {
                        OptionSpec attached = spec.findOption(arg.substring(0, 2));
                        if (attached != null && !attached.isFlag()) {
                            option = attached;
                            optionName = arg.substring(0, 2);
                            inline = arg.substring(2);
                        }
                    }
                    if (option == null) {
                        throw unknownOption(arg, optionName, spec, name);
                    }
                    if (option == CommandSpec.HELP || option == CommandSpec.VERSION) {
                        return new ParsedLine(command, spec, name, Arguments.none(),
                                option == CommandSpec.HELP ? ParsedLine.Request.HELP : ParsedLine.Request.VERSION);
                    }
                    if (option.isFlag()) {
                        once(values, option, optionName, name);
                        if (inline == null || inline.equals("true")) {
                            values.put(option, Boolean.TRUE);
                        } else if (!inline.equals("false")) {
                            throw new UsageError(quote("option ", optionName, " takes no value (or true or false), not ",
                                    "'" + inline + "'"), name);
                        }
                        continue;
                    }
                    String text = inline;
                    if (text == null) {
                        if (i + 1 == args.length || spec.findOption(args[i + 1]) != null) {
                            throw new UsageError(quote("option ", optionName, " needs a value (", option.label())
                                    + ')', name);
                        }
                        text = args[++i];
                    }
                    add(values, option, optionName, text, name);
                    continue;
                }
                if (parameters == 0 && !spec.subcommands().isEmpty()) {
                    CliCommand sub = subcommand(spec, arg);
                    if (sub != null) {
                        command = sub;
                        spec = sub.spec();
                        name = name + ' ' + spec.name();
                        values = new IdentityHashMap<>();
                        continue;
                    }
                    if (spec.parameters().isEmpty()) {
                        throw unknownCommand(arg, spec, name);
                    }
                }
                addParameter(values, spec, parameters, arg, name);
                parameters++;
                if (spec.stopsAtPositional()) {
                    onlyParameters = true;
                }
            } catch (UsageError e) {
                throw new Mistake(e, helpFollows(args, i + 1, onlyParameters), command, spec);
            }
        }
        try {
            complete(values, spec, name);
        } catch (UsageError e) {
            throw new Mistake(e, false, command, spec);
        }
        return new ParsedLine(command, spec, name, new Arguments(values), ParsedLine.Request.RUN);
    }

    /** Whether {@code -h} or {@code --help} is among the options from {@code from} on. */
    private static boolean helpFollows(String[] args, int from, boolean onlyParameters) {
        for (int i = from; i < args.length && !onlyParameters; i++) {
            if (args[i].equals("--")) {
                return false;
            }
            if (CommandSpec.HELP.hasName(args[i])) {
                return true;
            }
        }
        return false;
    }

    private static CliCommand subcommand(CommandSpec spec, String name) {
        for (CliCommand sub : spec.subcommands()) {
            if (sub.spec().name().equals(name)) {
                return sub;
            }
        }
        return null;
    }

    /** A single-valued option given a second time is a mistake, not a silent override. */
    private static void once(Map<Object, Object> values, OptionSpec option, String given, String command)
            throws UsageError {
        if (values.containsKey(option)) {
            throw new UsageError(quote("option ", given, " was given more than once", ""), command);
        }
    }

    @SuppressWarnings("unchecked")
    private static void add(Map<Object, Object> values, OptionSpec option, String given, String text, String command)
            throws UsageError {
        String what = quote("option ", given, "", "");
        if (!option.isRepeatable()) {
            once(values, option, given, command);
            values.put(option, convert(option.type(), text, what, option.keyOnlyValue(), command));
            return;
        }
        if (option.type() == ValueType.KEY_VALUE) {
            Map<String, String> map = (Map<String, String>) values.get(option);
            if (map == null) {
                map = new LinkedHashMap<>();
                values.put(option, map);
            }
            String[] pair = (String[]) convert(option.type(), text, what, option.keyOnlyValue(), command);
            map.put(pair[0], pair[1]);
            return;
        }
        List<Object> list = (List<Object>) values.get(option);
        if (list == null) {
            list = new ArrayList<>();
            values.put(option, list);
        }
        String separator = option.split();
        if (separator == null) {
            list.add(convert(option.type(), text, what, null, command));
            return;
        }
        int from = 0;
        while (true) {
            int at = text.indexOf(separator, from);
            String piece = at < 0 ? text.substring(from) : text.substring(from, at);
            list.add(convert(option.type(), piece, what, null, command));
            if (at < 0) {
                return;
            }
            from = at + separator.length();
        }
    }

    @SuppressWarnings("unchecked")
    private static void addParameter(Map<Object, Object> values, CommandSpec spec, int index, String arg, String command)
            throws UsageError {
        List<ParameterSpec> declared = spec.parameters();
        ParameterSpec last = declared.isEmpty() ? null : declared.get(declared.size() - 1);
        if (index >= declared.size() && (last == null || !last.isRest())) {
            throw new UsageError(quote("unexpected argument ", arg, declared.isEmpty()
                    ? " (this command takes no parameters"
                    : " (this command takes " + labels(declared), ")"), command);
        }
        ParameterSpec parameter = index < declared.size() ? declared.get(index) : last;
        if (parameter.isRest()) {
            List<String> rest = (List<String>) values.get(parameter);
            if (rest == null) {
                rest = new ArrayList<>();
                values.put(parameter, rest);
            }
            rest.add(arg);
        } else {
            values.put(parameter, convert(parameter.type(), arg, "parameter " + parameter.label(), null, command));
        }
    }

    /** Fills in the defaults, then refuses a command line without a required option or parameter. */
    private static void complete(Map<Object, Object> values, CommandSpec spec, String command) throws UsageError {
        for (ParameterSpec parameter : spec.parameters()) {
            if (parameter.isRequired() && !values.containsKey(parameter)) {
                throw new UsageError(quote("missing required parameter ", parameter.label(), "", ""), command);
            }
        }
        StringBuilder missing = new StringBuilder();
        int count = 0;
        for (OptionSpec option : spec.options()) {
            if (values.containsKey(option)) {
                continue;
            }
            if (option.defaultValue() != null) {
                add(values, option, option.longName(), option.defaultValue(), command);
            } else if (option.isRequired()) {
                missing.append(count++ == 0 ? "'" : ", '").append(HelpText.synopsis(option)).append('\'');
            }
        }
        if (count > 0) {
            throw new UsageError((count == 1 ? "missing required option " : "missing required options ") + missing,
                    command);
        }
    }

    private static Object convert(ValueType type, String text, String what, String keyOnly, String command)
            throws UsageError {
        try {
            return type.convert(text, what, keyOnly);
        } catch (UsageError e) {
            throw new UsageError(e.getMessage(), command);
        }
    }

    private static UsageError unknownOption(String arg, String optionName, CommandSpec spec, String command) {
        List<String> names = new ArrayList<>();
        for (OptionSpec o : spec.options()) {
            names.addAll(o.names());
        }
        String close = Suggestion.closest(optionName, names);
        StringBuilder message = new StringBuilder(quote("unknown option ", arg, "", ""));
        if (close != null) {
            message.append(" (did you mean '").append(close).append("'?)");
        } else if (!spec.parameters().isEmpty()) {
            message.append(" (a parameter that starts with '-' goes after '--')");
        }
        return new UsageError(message.toString(), command);
    }

    private static UsageError unknownCommand(String arg, CommandSpec spec, String command) {
        List<String> names = new ArrayList<>();
        for (CliCommand sub : spec.subcommands()) {
            names.add(sub.spec().name());
        }
        String close = Suggestion.closest(arg, names);
        StringBuilder message = new StringBuilder(quote("", arg, " is not a command of ", command));
        if (close != null) {
            message.append(" (did you mean '").append(close).append("'?)");
        } else {
            message.append(" (its commands: ").append(String.join(", ", names)).append(')');
        }
        return new UsageError(message.toString(), command);
    }

    private static String labels(List<ParameterSpec> parameters) {
        StringBuilder s = new StringBuilder();
        for (ParameterSpec p : parameters) {
            s.append(s.length() == 0 ? "" : " ").append(p.label());
        }
        return s.toString();
    }

    /** {@code before 'quoted' after}: the form every message names an argument in. */
    private static String quote(String before, String quoted, String after, String end) {
        return new StringBuilder(before).append('\'').append(quoted).append('\'').append(after).append(end).toString();
    }
}
