package io.perfpin.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * perfpin's exit codes: the one table of them. The exit-code table of docs/cli.md is this table's
 * {@link Entry#meaning}s, and {@code perfpin --help} lists their {@link Entry#summary}s; a test holds the page to it.
 */
public final class ExitCode {
    public static final int OK = 0;
    public static final int FAILURE = 1;
    public static final int USAGE = 2;
    public static final int NO_SUCH_PROCESS = 3;
    public static final int NOT_A_JVM = 4;
    public static final int PERMISSION_DENIED = 5;
    public static final int NO_AGENT = 6;
    public static final int ATTACH_FAILED = 7;
    public static final int PROCESS_CHANGED = 8;
    /** The JVM's own exit on SIGINT (128 + 2), which the stop signal's hook lets happen once the command is done. */
    public static final int INTERRUPTED = 130;
    /** The JVM's own exit on SIGTERM (128 + 15), likewise. */
    public static final int TERMINATED = 143;

    /**
     * One exit code.
     *
     * @param summary a few words, for the help
     * @param meaning what it means, for which command, as docs/cli.md's table says it (Markdown)
     */
    record Entry(int code, String summary, String meaning) {}

    /** Every code, in order. */
    static final List<Entry> TABLE = List.of(
            new Entry(
                    OK,
                    "success",
                    "success (`top` also ends with 0 when the JVM exits or the agent detaches, and on `q`)"),
            new Entry(
                    FAILURE,
                    "failure: the message says what failed",
                    "failure: the message says what failed (a file that cannot be read or is not a recording,"
                            + " a placement that cannot be had); `attach`: the agent refused something its options"
                            + " asked (a pin, threads it could not count or enrol; the agent attach loaded is then"
                            + " detached), or it already runs with other options and `--restart` was not given;"
                            + " `detach`: the agent took the request but says it still runs, or that its detach"
                            + " failed; `attach` and `detach`: the agent has said it is starting for over 3 s"),
            new Entry(
                    USAGE,
                    "usage error: a bad option, event name or value",
                    "usage error: one line naming the option, the bad token and what is allowed (for a"
                            + " misspelt name, option or command, the nearest valid ones); `stat` and `attach`: a"
                            + " `--pin` to CPUs the JVM may not use (`attach` then loads nothing)"),
            new Entry(NO_SUCH_PROCESS, "no such process", "no such process (`no process with pid N`)"),
            new Entry(
                    NOT_A_JVM,
                    "not a JVM",
                    "not a JVM (`process N (sleep) is not a HotSpot JVM: it has no libjvm.so loaded`)"),
            new Entry(
                    PERMISSION_DENIED,
                    "permission denied: the process runs as another user",
                    "permission denied: the process runs as another user"),
            new Entry(
                    NO_AGENT,
                    "no agent runs in the JVM",
                    "no agent: `top` or `detach` was given a JVM where no perfpin agent runs (`top`: no stats"
                            + " file, or a closed one; `detach`: the JVM loaded no Java agent, or the agent says"
                            + " through its attach channel that none runs, whatever its stats file says)"),
            new Entry(
                    ATTACH_FAILED,
                    "attach failed: the JVM would not load the agent, or it did not start",
                    "attach failed: the JVM accepts no attach (`-XX:+DisableAttachMechanism`, seen before any"
                            + " signal), its listener did not start within 2 s of one SIGQUIT, another user's trigger"
                            + " file is in the way, it would not load the agent (`-XX:-EnableDynamicAgentLoading`), or"
                            + " the agent did not start in it or published no stats file (the JVM's stderr has a"
                            + " `[perfpin]` line saying why; `attach` detaches an agent that runs nonetheless)."
                            + " `attach`, `detach`, `stat` alike; `run`: the JVM it started turned the agent down, and"
                            + " nothing was recorded (the line says the application's own exit code)"),
            new Entry(
                    PROCESS_CHANGED,
                    "the pid no longer names the process perfpin checked",
                    "`stat`: the pid no longer names the process perfpin checked: it exited and its pid went"
                            + " to another process, or it exec'd another program (a setuid one, say) or runs as other"
                            + " users. perfpin left it alone from then on: no pin, no counter read, no affinity given"
                            + " back"),
            new Entry(
                    INTERRUPTED,
                    "interrupted: Ctrl-C (SIGINT)",
                    "interrupted: Ctrl-C (SIGINT) ended the command, once it had done what a signal leaves it to do"
                            + " (a view's or `stat`'s totals written, pins given back, `attach --detach-on-exit`'s"
                            + " detach), whatever it would have returned; `run` then no longer waits for its"
                            + " application"),
            new Entry(TERMINATED, "terminated: SIGTERM", "terminated: SIGTERM ended the command, as Ctrl-C does"));

    private ExitCode() {}

    /** The codes and their summaries, as picocli lists them under the help's heading. */
    static Map<String, String> summaries() {
        Map<String, String> summaries = new LinkedHashMap<>();
        TABLE.forEach(e -> summaries.put(Integer.toString(e.code()), e.summary()));
        return summaries;
    }
}
