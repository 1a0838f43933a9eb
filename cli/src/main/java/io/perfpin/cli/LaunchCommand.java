package io.perfpin.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The command that {@code perfpin run} launches, and where in it the JVM's options start: right after the
 * {@code java} word, which may stand behind wrappers that run it ({@code taskset -c 0 java ...},
 * {@code env FOO=bar nice -n 5 java ...}; see {@link CommandWrapper}). A word is java when its file name is
 * exactly {@code java}, whatever its directory: {@code /usr/lib/jvm/.../bin/java}, {@code ./jdk/bin/java}, or a
 * launcher script of that name. A command that starts java any other way (a shell, a script, mvn, gradle) is
 * refused: the agent's option in the wrong place would be an argument of something else.
 */
final class LaunchCommand {
    private static final Pattern PLAIN_WORD = Pattern.compile("[\\w@%+=:,./-]+");
    /** What a shell still reads inside double quotes. */
    private static final Pattern SHELL_SPECIAL = Pattern.compile("[\"\\\\$`]");
    /** Messages quote the command; a class path can make it far longer than a line. */
    private static final int SHOWN_CHARS = 200;

    private final List<String> words;
    private final int java;
    private final String user;

    private LaunchCommand(List<String> words, int java, String user) {
        this.words = List.copyOf(words);
        this.java = java;
        this.user = user;
    }

    /**
     * @throws IllegalArgumentException when no java can be found: one line that says where perfpin looked and
     *                                  what to do instead
     */
    static LaunchCommand of(List<String> words) {
        String[] user = {null};
        int at = 0;
        while (at < words.size()) {
            String word = words.get(at);
            String program = word.substring(word.lastIndexOf('/') + 1);
            if (program.equals("java")) {
                return new LaunchCommand(words, at, user[0]);
            }
            CommandWrapper wrapper = CommandWrapper.named(program);
            if (wrapper == null) {
                throw refused(words, "'" + word + "' is neither java nor a program that perfpin looks through");
            }
            try {
                at = wrapper.commandAfter(words, at, runsAs -> user[0] = runsAs);
            } catch (IllegalArgumentException e) {
                throw refused(words, e.getMessage());
            }
        }
        throw refused(words, "it is empty");
    }

    private static IllegalArgumentException refused(List<String> words, String why) {
        return new IllegalArgumentException("no java command in '" + shown(words) + "': " + why + "; put java first,"
                + " or after " + CommandWrapper.names() + " and their options");
    }

    /** Where the java word stands. */
    int javaIndex() {
        return java;
    }

    /** The words after java: the JVM's options, then the application and its arguments. */
    List<String> afterJava() {
        return words.subList(java + 1, words.size());
    }

    /** The command with {@code option} as the JVM's first option, before those the user gave. */
    List<String> withJvmOption(String option) {
        List<String> launched = new ArrayList<>(words);
        launched.add(java + 1, option);
        return launched;
    }

    /**
     * The user a wrapper ({@code sudo -u}, {@code setpriv --reuid}) runs java as, when that is not the user
     * named {@code name} with uid {@code uid}: a name, or a uid as sudo ({@code #1000}) or setpriv write it.
     */
    Optional<String> otherUser(String name, int uid) {
        if (user == null) {
            return Optional.empty();
        }
        String id = user.startsWith("#") ? user.substring(1) : user;
        boolean same = id.matches("\\d+") ? id.equals(Integer.toString(uid)) : user.equals(name);
        return same ? Optional.empty() : Optional.of(user);
    }

    /**
     * The words as a shell would take them back, in double quotes where needed (messages quote in single ones),
     * cut after {@value #SHOWN_CHARS} characters.
     */
    static String shown(List<String> words) {
        StringBuilder text = new StringBuilder();
        for (String word : words) {
            if (text.length() > 0) {
                text.append(' ');
            }
            boolean plain = PLAIN_WORD.matcher(word).matches();
            text.append(plain ? word : '"' + SHELL_SPECIAL.matcher(word).replaceAll("\\\\$0") + '"');
        }
        return text.length() <= SHOWN_CHARS ? text.toString() : text.substring(0, SHOWN_CHARS) + "...";
    }
}
