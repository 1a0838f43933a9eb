package io.perfpin.cli;

import java.util.Arrays;
import java.util.HashSet;
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
 * an argument.
 */
final class CommandWrapper {
    /** What stands between a program's options and the command it runs. */
    private enum Operand {
        NONE,
        /** taskset's mask or CPU list. */
        ONE,
        /** chrt's priority, which recent util-linux lets policies without one leave out. */
        NUMBER_IF_GIVEN
    }

    private static final Pattern NUMBER = Pattern.compile("\\d+");
    /** nice's obsolete adjustment: {@code nice -5 cmd}, {@code nice --10 cmd}. */
    private static final Pattern NICE_ADJUSTMENT = Pattern.compile("-[-+]?\\d+");
    private static final Map<String, CommandWrapper> KNOWN = new LinkedHashMap<>();

    static {
        // Each program's options as its --help and source give them; one letter is a short option.
        wrapper("taskset", "a all-tasks c cpu-list", "", "p pid h V").operand(Operand.ONE);
        wrapper("numactl", "a all l localalloc b balancing t strict d dump D dump-nodes u huge T touch V verify"
                + " cpu-compress", "i interleave w weighted-interleave p preferred P preferred-many c cpubind"
                + " N cpunodebind C physcpubind m membind S shm f file o offset L length M shmmode I shmid",
                "s show H hardware");
        wrapper("env", "i ignore-environment 0 null v debug block-signal default-signal ignore-signal"
                + " list-signal-handling", "u unset C chdir a argv0", "S split-string").assignments().loneDash();
        wrapper("nice", "", "n adjustment", "").obsolete(NICE_ADJUSTMENT);
        wrapper("chrt", "b batch d deadline f fifo i idle o other r rr R reset-on-fork a all-tasks v verbose",
                "T sched-runtime P sched-period D sched-deadline", "p pid m max h V").operand(Operand.NUMBER_IF_GIVEN);
        wrapper("ionice", "t ignore", "c class n classdata", "p pid P pgid u uid h V");
        wrapper("setpriv", "nnp no-new-privs clear-groups keep-groups init-groups reset-env", "ruid euid rgid egid"
                + " reuid regid groups inh-caps ambient-caps bounding-set securebits pdeathsig selinux-label"
                + " apparmor-profile landlock-access landlock-rule seccomp-filter ptracer", "d dump h V")
                .user(null, "euid reuid");
        wrapper("sudo", "A askpass B bell E preserve-env H set-home i login k reset-timestamp N no-update"
                + " n non-interactive P preserve-groups S stdin s shell", "a auth-type C close-from c login-class"
                + " D chdir g group host p prompt R chroot r role T command-timeout t type U other-user u user",
                "b background e edit K remove-timestamp l list v validate h V").assignments().user("root", "u user");
        wrapper("stdbuf", "", "i input o output e error", "");
        wrapper("time", "a append p portability q quiet v verbose", "f format o output", "h V");
        wrapper("nohup", "", "", "");
    }

    private final String name;
    private final Set<String> flags;
    private final Set<String> valued;
    /** Options after which the program runs no command, or none that perfpin can follow. */
    private final Set<String> noCommand;
    private Operand operand = Operand.NONE;
    private boolean assignments;
    private boolean loneDashIsOption;
    private Pattern obsolete;
    /** Options that name the user the command runs as; without one, it runs as {@link #defaultUser}. */
    private Set<String> userOptions = Set.of();
    private String defaultUser;

    private CommandWrapper(String name, String flags, String valued, String noCommand) {
        this.name = name;
        this.flags = words(flags);
        this.valued = words(valued);
        this.noCommand = words(noCommand + " help version");
    }

    private static CommandWrapper wrapper(String name, String flags, String valued, String noCommand) {
        CommandWrapper wrapper = new CommandWrapper(name, flags, valued, noCommand);
        KNOWN.put(name, wrapper);
        return wrapper;
    }

    private CommandWrapper operand(Operand what) {
        operand = what;
        return this;
    }

    private CommandWrapper assignments() {
        assignments = true;
        return this;
    }

    /** A lone {@code -} is an option (env's {@code -i}), not the command. */
    private CommandWrapper loneDash() {
        loneDashIsOption = true;
        return this;
    }

    private CommandWrapper obsolete(Pattern options) {
        obsolete = options;
        return this;
    }

    /** The command runs as the user these options name, else as {@code byDefault} (null: as the caller). */
    private CommandWrapper user(String byDefault, String options) {
        defaultUser = byDefault;
        userOptions = words(options);
        return this;
    }

    private static Set<String> words(String list) {
        Set<String> words = new HashSet<>(Arrays.asList(list.trim().split(" +")));
        words.remove("");
        return words;
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
        String user = defaultUser;
        int i = at + 1;
        while (i < words.size()) {
            String word = words.get(i);
            if (word.equals("--")) {
                i++;
                break;
            }
            if (!word.startsWith("-") || word.equals("-") && !loneDashIsOption) {
                break;
            }
            i++;
            if (word.equals("-") || obsolete != null && obsolete.matcher(word).matches()) {
                continue;
            }
            if (word.startsWith("--")) {
                int equals = word.indexOf('=');
                String option = longOption(word.substring(2, equals < 0 ? word.length() : equals));
                String value = equals >= 0 ? word.substring(equals + 1)
                        : valued.contains(option) && i < words.size() ? words.get(i++) : null;
                user = userOptions.contains(option) ? value : user;
                continue;
            }
            for (int k = 1; k < word.length(); k++) {
                String option = shortOption(word.charAt(k));
                if (valued.contains(option)) {
                    String value = k + 1 < word.length() ? word.substring(k + 1) : i < words.size() ? words.get(i++)
                            : null;
                    user = userOptions.contains(option) ? value : user;
                    break;
                }
            }
        }
        if (operand == Operand.ONE && i < words.size()
                || operand == Operand.NUMBER_IF_GIVEN && i < words.size() && NUMBER.matcher(words.get(i)).matches()) {
            i++;
        }
        while (assignments && i < words.size() && words.get(i).contains("=")) {
            i++;
        }
        if (i >= words.size()) {
            throw new IllegalArgumentException("'" + LaunchCommand.shown(words.subList(at, words.size()))
                    + "' is followed by no command");
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
        List<String> names = Stream.of(flags, valued, noCommand).flatMap(Set::stream).filter(o -> o.length() > 1)
                .toList();
        List<String> completions = names.stream().filter(o -> !text.isEmpty() && o.startsWith(text)).toList();
        return option("--" + text, names.contains(text) ? text : completions.size() == 1 ? completions.get(0) : null);
    }

    /** The option, once it is known to be one after which the command still runs; null is none. */
    private String option(String given, String option) {
        if (noCommand.contains(option)) {
            throw new IllegalArgumentException("with " + given + ", " + name + " runs no command that perfpin can"
                    + " follow");
        }
        if (!flags.contains(option) && !valued.contains(option)) {
            throw new IllegalArgumentException(name + "'s option " + given + " is not one perfpin knows, so it cannot"
                    + " tell whether it takes a value");
        }
        return option;
    }
}
