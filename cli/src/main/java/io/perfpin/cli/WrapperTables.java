package io.perfpin.cli;

import io.perfpin.cli.GetoptTable.Operand;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The programs that {@code perfpin run} looks through to find java ({@code taskset -c 0 java ...}), each with its
 * getopt table: the data that {@link CommandWrapper} reads a command line by, in the order messages name them.
 */
final class WrapperTables {
    /** nice's obsolete adjustment: {@code nice -5 cmd}, {@code nice --10 cmd}. */
    private static final Pattern NICE_ADJUSTMENT = Pattern.compile("-[-+]?\\d+");

    /** Each program's options as its --help and source give them: flags, valued options, those that run nothing. */
    static final List<GetoptTable> ALL = List.of(
            GetoptTable.of("taskset", "a all-tasks c cpu-list", "", "p pid h V").withOperand(Operand.ONE),
            GetoptTable.of(
                    "numactl",
                    "a all l localalloc b balancing t strict d dump D dump-nodes u huge T touch"
                            + " V verify cpu-compress",
                    "i interleave w weighted-interleave p preferred P preferred-many"
                            + " c cpubind N cpunodebind C physcpubind m membind S shm f file o offset L length M"
                            + " shmmode I shmid",
                    "s show H hardware"),
            GetoptTable.of(
                            "env",
                            "i ignore-environment 0 null v debug block-signal default-signal ignore-signal"
                                    + " list-signal-handling",
                            "u unset C chdir a argv0",
                            "S split-string")
                    .withAssignments()
                    .withLoneDashOption(),
            GetoptTable.of("nice", "", "n adjustment", "").withObsolete(NICE_ADJUSTMENT),
            GetoptTable.of(
                            "chrt",
                            "b batch d deadline f fifo i idle o other r rr R reset-on-fork a all-tasks" + " v verbose",
                            "T sched-runtime P sched-period D sched-deadline",
                            "p pid m max h V")
                    .withOperand(Operand.NUMBER_IF_GIVEN),
            GetoptTable.of("ionice", "t ignore", "c class n classdata", "p pid P pgid u uid h V"),
            GetoptTable.of(
                            "setpriv",
                            "nnp no-new-privs clear-groups keep-groups init-groups reset-env",
                            "ruid euid"
                                    + " rgid egid reuid regid groups inh-caps ambient-caps bounding-set securebits"
                                    + " pdeathsig selinux-label apparmor-profile landlock-access landlock-rule"
                                    + " seccomp-filter ptracer",
                            "d dump h V")
                    .withUser(null, "euid reuid"),
            GetoptTable.of(
                            "sudo",
                            "A askpass B bell E preserve-env H set-home i login k reset-timestamp"
                                    + " N no-update n non-interactive P preserve-groups S stdin s shell",
                            "a auth-type C close-from"
                                    + " c login-class D chdir g group host p prompt R chroot r role T"
                                    + " command-timeout t type U other-user u user",
                            "b background e edit K remove-timestamp l list v validate h V")
                    .withAssignments()
                    .withUser("root", "u user"),
            GetoptTable.of("stdbuf", "", "i input o output e error", ""),
            GetoptTable.of("time", "a append p portability q quiet v verbose", "f format o output", "h V"),
            GetoptTable.of("nohup", "", "", ""));

    private WrapperTables() {}
}
