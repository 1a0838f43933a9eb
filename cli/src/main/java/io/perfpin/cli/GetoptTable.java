package io.perfpin.cli;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One program's options as its getopt reads them, for {@link CommandWrapper}: data, read from the program's --help
 * and source ({@link WrapperTables} holds them). In each list one letter is a short option, a longer word a long one.
 *
 * @param program          the program's file name
 * @param flags            its options that take no value
 * @param valued           its options that take one
 * @param noCommand        its options after which it runs no command, or none that perfpin can follow; help and
 *                         version always
 * @param operand          what stands between its options and the command it runs
 * @param assignments      whether {@code NAME=VALUE} words may stand before the command (env, sudo)
 * @param loneDashIsOption whether a lone {@code -} is an option (env's {@code -i}), not the command
 * @param obsolete         its obsolete options, which getopt does not read (nice's {@code -5}); null for none
 * @param userOptions      its options that name the user the command runs as
 * @param defaultUser      the user the command runs as without one of those; null: as the caller
 */
record GetoptTable(
        String program,
        Set<String> flags,
        Set<String> valued,
        Set<String> noCommand,
        Operand operand,
        boolean assignments,
        boolean loneDashIsOption,
        Pattern obsolete,
        Set<String> userOptions,
        String defaultUser) {
    /** What stands between a program's options and the command it runs. */
    enum Operand {
        NONE,
        /** taskset's mask or CPU list. */
        ONE,
        /** chrt's priority, which recent util-linux lets policies without one leave out. */
        NUMBER_IF_GIVEN
    }

    /** Sets that may be asked about null, an option getopt would not know: Set.copyOf's would throw. */
    GetoptTable {
        flags = unmodifiable(flags);
        valued = unmodifiable(valued);
        noCommand = unmodifiable(noCommand);
        userOptions = unmodifiable(userOptions);
    }

    /** A program's options, each list words apart; it takes no operand, no assignments, and runs as the caller. */
    static GetoptTable of(String program, String flags, String valued, String noCommand) {
        return new GetoptTable(
                program,
                words(flags),
                words(valued),
                words(noCommand + " help version"),
                Operand.NONE,
                false,
                false,
                null,
                Set.of(),
                null);
    }

    GetoptTable withOperand(Operand what) {
        return new GetoptTable(
                program,
                flags,
                valued,
                noCommand,
                what,
                assignments,
                loneDashIsOption,
                obsolete,
                userOptions,
                defaultUser);
    }

    GetoptTable withAssignments() {
        return new GetoptTable(
                program, flags, valued, noCommand, operand, true, loneDashIsOption, obsolete, userOptions, defaultUser);
    }

    GetoptTable withLoneDashOption() {
        return new GetoptTable(
                program, flags, valued, noCommand, operand, assignments, true, obsolete, userOptions, defaultUser);
    }

    GetoptTable withObsolete(Pattern options) {
        return new GetoptTable(
                program,
                flags,
                valued,
                noCommand,
                operand,
                assignments,
                loneDashIsOption,
                options,
                userOptions,
                defaultUser);
    }

    /** The command runs as the user these {@code options} name, else as {@code byDefault} (null: as the caller). */
    GetoptTable withUser(String byDefault, String options) {
        return new GetoptTable(
                program,
                flags,
                valued,
                noCommand,
                operand,
                assignments,
                loneDashIsOption,
                obsolete,
                words(options),
                byDefault);
    }

    private static Set<String> unmodifiable(Set<String> options) {
        return Collections.unmodifiableSet(new HashSet<>(options));
    }

    private static Set<String> words(String list) {
        Set<String> words = new HashSet<>(Arrays.asList(list.trim().split(" +")));
        words.remove("");
        return words;
    }
}
