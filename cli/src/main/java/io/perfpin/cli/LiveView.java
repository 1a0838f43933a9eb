package io.perfpin.cli;

import io.perfpin.StopSignal;
import io.perfpin.jvm.JavaProcess;
import io.perfpin.report.StatsWindows;
import io.perfpin.stats.StatsClosing;
import io.perfpin.stats.StatsFileReader;
import io.perfpin.stats.StatsSnapshot;
import java.io.Console;
import java.io.IOException;
import java.time.Duration;

/**
 * The live view of a JVM's stats file, for {@code top}, {@code attach} and {@code run}: it shows a frame each time
 * the agent has published a sample and the view's interval has passed, in the agent's windows
 * ({@link StatsWindows}), until the agent closes the file, the JVM is gone, the duration passes, a signal comes or
 * {@code q} is pressed ({@link LiveEnding}); then every thread's totals and the hints. This is its loop and its
 * keys; {@link LiveFrames} renders what it shows.
 *
 * <p>In a terminal, with the table on standard output, it redraws in place, sized to the screen, and reads keys:
 * {@code q} quits, {@code s} sorts by the next column, {@code p} pauses (the window then spans the pause). Otherwise
 * it writes plain blocks, or CSV rows or JSON lines of {@code "type":"sample"} per thread per window, then the final
 * {@code "type":"thread"} records.
 */
final class LiveView {
    /** How often the view looks for the agent's next sample once its own interval has passed. */
    private static final Duration POLL = Duration.ofMillis(10);
    /** Lines of the screen that are not rows: the heading, the table's header, the footer. */
    private static final int CHROME_LINES = 5;

    private final String command;
    private final long pid;
    private final StatsFileReader reader;
    private final ThreadsOption threads;
    private final ViewOptions view;
    private final ReportOutput out;
    private final StatsWindows windows;
    /** For run: the JVMs the watched one starts with the agent's options, shown below it; null for top and attach. */
    private final ChildJvms children;
    /** What the view shows, once {@link #watch} has begun. */
    private LiveFrames frames;
    /** Why the view ended, once {@link #watch} returned. */
    private LiveEnding ending;

    LiveView(
            String command,
            long pid,
            StatsFileReader reader,
            ThreadsOption threads,
            ViewOptions view,
            ReportOutput out,
            ChildJvms children) {
        this.command = command;
        this.pid = pid;
        this.reader = reader;
        this.threads = threads;
        this.view = view;
        this.out = out;
        this.windows = new StatsWindows(pid);
        this.children = children;
    }

    /**
     * Watches every {@code every} (the agent's own interval when null) for {@code duration} (null: no end); returns
     * why it ended, once it has said so.
     */
    LiveEnding watch(Duration every, Duration duration) throws IOException, InterruptedException {
        Duration agent = Duration.ofNanos(reader.intervalNanos());
        Duration interval = every != null ? every : agent;
        long deadline = duration == null ? Long.MAX_VALUE : System.nanoTime() + duration.toNanos();
        boolean redraw = out.toStandardOutput() && out.format() == ReportFormat.TABLE && isTerminal();
        TableLayout layout = view.layout(redraw ? Math.max(1, TerminalKeys.rows() - CHROME_LINES) : 0);
        try (StopSignal stop = StopSignal.install();
                TerminalKeys keys = redraw ? TerminalKeys.open() : null) {
            out.layout(layout);
            frames = new LiveFrames(command, pid, threads, view, out, children, redraw, layout);
            if (interval.compareTo(agent) < 0) {
                frames.agentSamplesEvery(agent, interval);
            }
            StatsSnapshot snapshot = reader.snapshot();
            frames.frame(snapshot, windows.next(snapshot));
            LiveEnding ending;
            while (true) {
                ending = ending(deadline);
                if (ending != null) {
                    break;
                }
                long wait = Math.min(interval.toNanos(), deadline - System.nanoTime());
                if (await(stop, keys, Duration.ofNanos(wait))) {
                    ending = LiveEnding.STOPPED;
                    break;
                }
                boolean news = false;
                while (!news && (ending = ending(deadline)) == null) {
                    snapshot = reader.snapshot();
                    news = windows.hasNew(snapshot);
                    if (!news && await(stop, keys, POLL)) {
                        ending = LiveEnding.STOPPED;
                    }
                }
                if (ending != null) {
                    break;
                }
                frames.frame(snapshot, windows.next(snapshot));
            }
            StatsSnapshot last = reader.snapshot();
            if (windows.hasNew(last) && last.isClosed()) {
                frames.frame(last, windows.next(last)); // the windows that end as the agent stopped counting
            }
            frames.summary(last, windows.totals(last), ending);
            this.ending = ending;
            return ending;
        }
    }

    /** Why the view ends now, or null while it goes on. */
    private LiveEnding ending(long deadline) throws IOException, InterruptedException {
        StatsClosing closing = reader.closing();
        if (closing != StatsClosing.OPEN) {
            return LiveEnding.of(closing);
        }
        if (!JavaProcess.isRunning(pid)) {
            return LiveEnding.KILLED;
        }
        if (System.nanoTime() >= deadline) {
            return LiveEnding.DURATION_PASSED;
        }
        return null;
    }

    /** Waits up to {@code length}, or until a signal or q; keys s and p act meanwhile. True to end. */
    private boolean await(StopSignal stop, TerminalKeys keys, Duration length)
            throws InterruptedException, IOException {
        if (keys == null) {
            return stop.await(length);
        }
        long end = System.nanoTime() + length.toNanos();
        for (long left = length.toNanos(); left > 0 || frames.paused(); left = end - System.nanoTime()) {
            if (stop.await(Duration.ZERO)) {
                return true;
            }
            char key = keys.poll(frames.paused() ? 50 : Math.max(1, Math.min(50, left / 1_000_000)));
            if (key == 'q') {
                return true;
            } else if (key == 's') {
                frames.sortByNextColumn();
            } else if (key == 'p') {
                frames.togglePause();
            }
        }
        return false;
    }

    /** After {@link #watch}: why it ended. */
    LiveEnding ending() {
        return ending;
    }

    /**
     * After {@link #watch}: when the agent counted none of the threads shown and left some uncounted for want of
     * file descriptors, those threads and why; null otherwise.
     */
    String noneCounted() {
        return frames.noneCounted();
    }

    /** After {@link #watch}: how many things the agent could not do that its options asked (its refusals). */
    int refusals() {
        return frames.refusals();
    }

    /**
     * Whether standard output is a terminal to redraw. From JDK 22, System.console() exists even when output
     * is redirected, and Console.isTerminal() tells; before, a console is a terminal.
     */
    static boolean isTerminal() {
        Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
        } catch (ReflectiveOperationException beforeJdk22) {
            return true;
        }
    }
}
