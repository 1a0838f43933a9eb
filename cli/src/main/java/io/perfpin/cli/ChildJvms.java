package io.perfpin.cli;

import io.perfpin.jvm.AgentStatsFile;
import io.perfpin.jvm.JavaProcess;
import io.perfpin.report.StatsWindows;
import io.perfpin.report.TerminalText;
import io.perfpin.report.ThreadReport;
import io.perfpin.stats.StatsFileReader;
import io.perfpin.stats.StatsSnapshot;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The JVMs that the application {@code run} launched starts in turn with the agent's options (JMH's forks, the
 * children of any launcher that passes its JVM's arguments on), shown live below the watched JVM's own block. At
 * each frame the launched process's descendants are looked through for JVMs whose agent publishes a stats file;
 * each is then rendered in its own agent's windows, as the live view renders a JVM, until its agent closes the file or
 * the JVM is gone. What they counted stays in their recordings ({@link io.perfpin.report.RecordingFile}), which
 * {@code run} summarises at the end.
 */
final class ChildJvms implements AutoCloseable {
    private final ProcessHandle launched;
    private final long watched;
    private final ThreadsOption threads;
    private final Map<Long, Child> children = new LinkedHashMap<>();
    /** The pids shown so far, in the order they were found. */
    private final List<Long> shown = new ArrayList<>();

    /** One child JVM's stats file, read at each frame, in its agent's windows. */
    private static final class Child {
        final StatsFileReader reader;
        final StatsWindows windows;
        /** The frame shown last: shown again while its agent has published no new sample. */
        StatsWindows.Frame frame;
        /** Whether a frame of it showed a thread: until then it is waiting for them, not without them. */
        boolean matched;

        Child(long pid, StatsFileReader reader) throws IOException {
            this.reader = reader;
            this.windows = new StatsWindows(pid);
            this.frame = windows.next(reader.snapshot());
        }
    }

    ChildJvms(ProcessHandle launched, long watched, ThreadsOption threads) {
        this.launched = launched;
        this.watched = watched;
        this.threads = threads;
    }

    /** The blocks of the child JVMs that run now, each in its agent's last window, laid out as {@code layout}. */
    List<String> frame(TableLayout layout) {
        discover();
        List<String> lines = new ArrayList<>();
        for (Iterator<Map.Entry<Long, Child>> it = children.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Long, Child> entry = it.next();
            long pid = entry.getKey();
            Child child = entry.getValue();
            try {
                if (child.reader.isClosed() || !JavaProcess.isRunning(pid)) {
                    lines.add("--- pid " + pid + " (started by pid " + watched + ") has ended ---");
                    it.remove();
                    child.reader.close();
                    continue;
                }
                StatsSnapshot snapshot = child.reader.snapshot();
                if (child.windows.hasNew(snapshot)) {
                    child.frame = child.windows.next(snapshot);
                }
                List<ThreadReport> rows = LiveFrames.rows(child.frame, threads);
                lines.addAll(ReportTable.fold(
                        LiveFrames.heading(
                                "run",
                                "pid " + pid + " (started by pid " + watched + ")",
                                snapshot,
                                child.frame,
                                rows.size() - child.frame.virtualGroups().size()),
                        layout.width()));
                child.matched |= !rows.isEmpty();
                lines.addAll(
                        rows.isEmpty()
                                ? List.of(LiveFrames.noLiveThread(threads, child.matched))
                                : ReportTable.render(rows, layout));
            } catch (IOException e) {
                lines.add(TerminalText.escape("--- pid " + pid + ": no more live view: " + e.getMessage() + " ---"));
                it.remove();
                closeQuietly(child.reader);
            }
        }
        return lines;
    }

    /** The child JVMs shown, in the order they were found. */
    List<Long> shown() {
        return List.copyOf(shown);
    }

    private void discover() {
        List<Long> candidates = launched.descendants()
                .map(ProcessHandle::pid)
                .filter(p -> p != watched && !shown.contains(p))
                .collect(Collectors.toList());
        for (long pid : candidates) {
            if (!AgentState.of(pid).active()) {
                continue; // no JVM, no agent in it, or one that has not started publishing yet: looked at again later
            }
            try {
                children.put(pid, new Child(pid, AgentStatsFile.open(pid)));
                shown.add(pid);
            } catch (IOException e) {
                // damaged or gone as it was opened: it is not shown, and the recording keeps its counts
                shown.add(pid);
            }
        }
    }

    @Override
    public void close() {
        children.values().forEach(c -> closeQuietly(c.reader));
        children.clear();
    }

    private static void closeQuietly(StatsFileReader reader) {
        try {
            reader.close();
        } catch (IOException e) {
            // read-only mapping: nothing was written that could be lost
        }
    }
}
