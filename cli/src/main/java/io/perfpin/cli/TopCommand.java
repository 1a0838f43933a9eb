package io.perfpin.cli;

import io.perfpin.files.FileErrors;
import io.perfpin.files.NamedFile;
import io.perfpin.jvm.AgentStatsFile;
import io.perfpin.jvm.AttachException;
import io.perfpin.jvm.JavaProcess;
import io.perfpin.stats.StatsFileReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * A live view of a JVM that runs the perfpin agent, read from its stats file alone: the agent's sampler
 * publishes there, and this command maps it read-only, so it costs the JVM nothing and needs no attach.
 */
@Command(name = "top", mixinStandardHelpOptions = true,
        description = {"Watch a JVM that runs the perfpin agent: each time the agent has sampled and --interval"
                + " (default: the agent's own) has passed, its live threads' counts over that window, in the"
                + " agent's time.",
                "Runs until the JVM exits or the agent detaches, --duration passes, Ctrl-C, or q in a terminal; then"
                        + " prints each thread's totals and hints. In a terminal it redraws in place (keys: q quits, s"
                        + " sorts by the next column, p pauses); otherwise it writes plain blocks, CSV rows or JSON"
                        + " lines (--format)."})
final class TopCommand implements Callable<Integer> {
    @Parameters(paramLabel = "PID", arity = "0..1", description = "The JVM to watch.")
    Long pid;

    @Option(names = "--stats", paramLabel = "FILE",
            description = "Read this stats file instead of the one of PID in the perfpin directory.")
    Path stats;

    @Mixin
    ThreadsOption threads;

    @Mixin
    IntervalOption interval;

    @Mixin
    DurationOption duration;

    @Mixin
    ViewOptions view;

    @Mixin
    OutputOptions output;

    @Override
    public Integer call() throws Exception {
        if (pid == null && stats == null) {
            throw new IllegalArgumentException("no JVM given: expected a PID, or --stats FILE");
        }
        try (ReportOutput out = output.open()) {
            return watch("top", pid, stats, threads, interval.interval, duration.given(), view, out, null).ending()
                    .exitCode();
        }
    }

    /**
     * The live view of the JVM {@code pid} (or of the stats file {@code stats}), said as {@code command}'s, until it
     * ends, written to {@code out}, which stays open for what the command writes after it, with {@code children} (for
     * run: the JVMs the watched one starts; else null) below it; returns it ended.
     */
    static LiveView watch(String command, Long pid, Path stats, ThreadsOption threads, Duration every,
                          Duration duration, ViewOptions view, ReportOutput out, ChildJvms children) throws Exception {
        Path file = stats != null ? stats : AgentStatsFile.of(pid);
        StatsFileReader opened;
        try {
            // A file the user named is opened as every such file is, and refused in one line naming what is wrong
            // on the way to it; a JVM's own, as its user in its own namespace.
            opened = stats != null ? StatsFileReader.openNamed(stats) : AgentStatsFile.open(pid);
        } catch (NamedFile.Refused e) {
            throw new IllegalStateException(e.getMessage());
        } catch (NoSuchFileException e) {
            JavaProcess.of(pid); // no such process, another user's, or no JVM: each has its own exit code
            throw new NoAgentException(pid, file);
        } catch (IOException e) {
            if (pid != null) {
                JavaProcess.of(pid); // another user's JVM, most often: exit 5, as for every command on a pid
            }
            throw FileErrors.unreadableStatsFile(file, e);
        }
        // A file damaged when it is opened, or while it is watched, ends the view with one line.
        try (StatsFileReader reader = opened) {
            if (command.equals("top") && reader.snapshot().isClosed()) {
                // Its totals are the last agent's, not a live one's: top was given a JVM where no agent runs.
                // run and attach started the agent they watch, and show how it ended. The whole snapshot is
                // read, so that a damaged file is said as damaged, not as closed.
                refuseClosed(pid, reader.pid(), file);
            }
            LiveView live = new LiveView(command, pid != null ? pid : reader.pid(), reader, threads, view, out,
                    children);
            live.watch(every, duration);
            return live;
        } catch (AttachException e) {
            throw e; // the process checked for a closed file: its own exit code, not a stats file's failure
        } catch (NamedFile.Refused e) {
            throw new IllegalStateException(e.getMessage());
        } catch (IOException e) {
            throw FileErrors.unreadableStatsFile(file, e);
        }
    }

    /**
     * A closed stats file: the process is checked as for a missing one when the user named a pid (gone, another
     * user's or no JVM each have their own exit code); otherwise no agent runs there any more.
     */
    private static void refuseClosed(Long pid, long filePid, Path file) throws AttachException, NoAgentException {
        if (pid != null) {
            JavaProcess.of(pid);
        }
        throw new NoAgentException(filePid, "its stats file " + file + " is closed: "
                + (JavaProcess.isRunning(filePid) ? "the agent detached" : "the JVM exited"));
    }
}
