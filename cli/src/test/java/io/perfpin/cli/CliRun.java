package io.perfpin.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.IntSupplier;
import java.util.regex.Pattern;

/** Runs the perfpin command in this JVM and captures its exit code, standard output and error. */
final class CliRun {
    private static final Duration JOIN_DEADLINE = Duration.ofMinutes(1);
    int code;
    String out;
    String err;

    static CliRun capture(IntSupplier command) {
        Running running = new Running();
        running.run(command);
        return running.result();
    }

    /**
     * A command run on another thread, for one that runs until something happens, whose output so far can be
     * watched. Standard output and error are this JVM's until it ends: the test thread must not print.
     */
    static Running background(IntSupplier command) {
        Running running = new Running();
        running.thread = new Thread(() -> running.run(command), "perfpin-command");
        running.thread.start();
        return running;
    }

    static final class Running {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        private final ByteArrayOutputStream err = new ByteArrayOutputStream();
        private volatile int code;
        private Thread thread;

        private void run(IntSupplier command) {
            PrintStream stdout = System.out;
            PrintStream stderr = System.err;
            try {
                System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
                System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
                code = command.getAsInt();
            } finally {
                System.setOut(stdout);
                System.setErr(stderr);
            }
        }

        /** Standard output so far. */
        String outSoFar() {
            return out.toString(StandardCharsets.UTF_8);
        }

        /**
         * Waits until standard output so far matches {@code output} whole; fails when the command ends without it,
         * or when a minute passes without it.
         */
        void awaitOut(Pattern output) throws InterruptedException {
            long deadline = System.nanoTime() + JOIN_DEADLINE.toNanos();
            while (!output.matcher(outSoFar()).matches()) {
                // Read again once it ended: what it printed last may be what was awaited.
                boolean ended = !thread.isAlive();
                if (ended && output.matcher(outSoFar()).matches()) {
                    return;
                }
                if (ended || System.nanoTime() > deadline) {
                    throw new AssertionError("the command " + (ended ? "ended" : "ran for " + JOIN_DEADLINE)
                            + " without printing " + output + "; its output so far:\n" + outSoFar());
                }
                Thread.sleep(20);
            }
        }

        /** Waits for the command to end, failing when it runs on for a minute. */
        CliRun join() throws InterruptedException {
            thread.join(JOIN_DEADLINE.toMillis());
            if (thread.isAlive()) {
                throw new AssertionError(
                        "the command still runs after " + JOIN_DEADLINE + "; its output so far:\n" + outSoFar());
            }
            return result();
        }

        private CliRun result() {
            CliRun result = new CliRun();
            result.code = code;
            result.out = out.toString(StandardCharsets.UTF_8);
            result.err = err.toString(StandardCharsets.UTF_8);
            return result;
        }
    }
}
