package io.perfpin.apps;

import java.io.PrintStream;
import java.util.function.Function;

/**
 * What every workload's {@code main} does: read the options, run, print the result line. A usage mistake
 * is one line on standard error, {@code <Workload>: <what is wrong>}, and exit code 2, never a stack trace;
 * {@code --help} lists the options.
 */
public final class Launcher {
    public static final int USAGE = 2;
    private static final int INTERRUPTED = 1;

    /** Runs a workload in process, the way benchmarks and tests do. */
    @FunctionalInterface
    public interface Workload<O> {
        WorkloadResult run(O options) throws InterruptedException;
    }

    private Launcher() {}

    /** The whole of a workload's {@code main}: exits with a non-zero code when it failed. */
    public static <O> void main(Class<?> workload, String[] args, Function<Args, O> options, Workload<O> run) {
        int code = launch(workload, args, options, run, System.out, System.err);
        if (code != 0) {
            System.exit(code);
        }
    }

    /** As {@link #main}, writing to the given streams and returning the exit code. */
    static <O> int launch(
            Class<?> workload,
            String[] args,
            Function<Args, O> options,
            Workload<O> run,
            PrintStream out,
            PrintStream err) {
        O chosen;
        try {
            Args parsed = Args.parse(args);
            boolean help = parsed.flag("help", "print the options and exit");
            chosen = options.apply(parsed);
            if (help) {
                out.println("usage: java " + workload.getName() + " " + parsed.synopsis());
                parsed.help().forEach(out::println);
                return 0;
            }
            parsed.rejectUnread();
        } catch (UsageException e) {
            err.println(workload.getSimpleName() + ": " + e.getMessage());
            return USAGE;
        }
        try {
            out.println(run.run(chosen).line());
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println(workload.getSimpleName() + ": interrupted");
            return INTERRUPTED;
        }
    }
}
