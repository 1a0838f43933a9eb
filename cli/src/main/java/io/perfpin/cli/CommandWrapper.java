package io.perfpin.cli;

import io.perfpin.cli.GetoptTable.Operand;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A program that runs another command after its own options, as {@code taskset -c 0 java ...} does: where that
 * command starts, read as the program's getopt reads its line. Options end at {@code --} or at the first word
 * that is none (all these programs stop there, as getopt's {@code +} asks); a valued option takes the rest of
 * its word or the next one, a long option may be a unique prefix. Then come the program's own operands (taskset's
 * mask, chrt's priority) and, for env and sudo, {@code NAME=VALUE} assignments. An option perfpin does not know
 * stops it: whether it takes a value decides where the command starts, and a guess could put the agent inside
 * an argument. Each program's options are data, its {@link GetoptTable} in {@link WrapperTables}.
 */
final class CommandWrapper {
    private static final Pattern NUMBER = Pattern.compile("\\d+");
    private static final Map<String, CommandWrapper> KNOWN = new LinkedHashMap<>();

    static {
        WrapperTables.ALL.forEach(table -> KNOWN.put(table.program(), new CommandWrapper(table)));
    }

    private final GetoptTable table;

    private CommandWrapper(GetoptTable table) {
        this.table = table;
    }

    /** The wrapper a program's file name names, or null. */
    static CommandWrapper named(String fileName) {
        return KNOWN.get(fileName);
    }

    /** For messages: every wrapper perfpin reads, in a list. */
    static String names() {
        List<String> names = List.copyOf(KNOWN.keySet());
        return String.join(", ", names.subList(0, names.size() - 1)) + " or " + names.get(names.size() - 1);
    }

    /**
     * Where the command this program runs starts, the program standing at {@code at} in {@code words}.
     *
     * @param runsAs told the user the command runs as, when this program sets one
     * @throws IllegalArgumentException why perfpin cannot tell, in words for a message
     */
    int commandAfter(List<String> words, int at, Consumer<String> runsAs) {
        String user = table.defaultUser();
        int i = at + 1;
        while (i < words.size()) {
            String word = words.get(i);
            if (word.equals("--")) {
                i++;
                break;
            }
            if (!word.startsWith("-") || word.equals("-") && !table.loneDashIsOption()) {
                break;
            }
            i++;
            if (word.equals("-")
                    || table.obsolete() != null
                            && table.obsolete().matcher(word).matches()) {
                continue;
            }
            if (word.startsWith("--")) {
                int equals = word.indexOf('=');
                String option = longOption(word.substring(2, equals < 0 ? word.length() : equals));
                String value = equals >= 0
                        ? word.substring(equals + 1)
                        : table.valued().contains(option) && i < words.size() ? words.get(i++) : null;
                user = table.userOptions().contains(option) ? value : user;
                continue;
            }
            for (int k = 1; k < word.length(); k++) {
                String option = shortOption(word.charAt(k));
                if (table.valued().contains(option)) {
                    String value =
                            k + 1 < word.length() ? word.substring(k + 1) : i < words.size() ? words.get(i++) : null;
                    user = table.userOptions().contains(option) ? value : user;
                    break;
                }
            }
        }
        Operand operand = table.operand();
        if (operand == Operand.ONE && i < words.size()
                || operand == Operand.NUMBER_IF_GIVEN
                        && i < words.size()
                        && NUMBER.matcher(words.get(i)).matches()) {
            i++;
        }
        while (table.assignments() && i < words.size() && words.get(i).contains("=")) {
            i++;
        }
        if (i >= words.size()) {
            throw new IllegalArgumentException(
                    "'" + LaunchCommand.shown(words.subList(at, words.size())) + "' is followed by no command");
        }
        if (user != null) {
            runsAs.accept(user);
        }
        return i;
    }

    private String shortOption(char letter) {
        return option("-" + letter, String.valueOf(letter));
    }

    /** getopt_long's reading: the option of that name, else the only one whose name the text begins. */
    private String longOption(String text) {
        List<String> names = Stream.of(table.flags(), table.valued(), table.noCommand())
                .flatMap(Set::stream)
                .filter(o -> o.length() > 1)
                .toList();
        List<String> completions = names.stream()
                .filter(o -> !text.isEmpty() && o.startsWith(text))
                .toList();
        return option("--" + text, names.contains(text) ? text : completions.size() == 1 ? completions.get(0) : null);
    }

    /** The option, once it is known to be one after which the command still runs; null is none. */
    private String option(String given, String option) {
        if (table.noCommand().contains(option)) {
            throw new IllegalArgumentException(
                    "with " + given + ", " + table.program() + " runs no command that" + " perfpin can follow");
        }
        if (!table.flags().contains(option) && !table.valued().contains(option)) {
            throw new IllegalArgumentException(table.program() + "'s option " + given + " is not one perfpin knows,"
                    + " so it cannot tell whether it takes a value");
        }
        return option;
    }
}
