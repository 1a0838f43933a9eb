package io.perfpin.cli;

import io.perfpin.jvm.AgentStatsFile;
import io.perfpin.jvm.JavaProcess;
import io.perfpin.report.TerminalText;
import io.perfpin.stats.StatsFileReader;

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
 * each is then rendered as {@code top} renders a JVM, until its agent closes the file or the JVM is gone. What
 * they counted stays in their recordings ({@link io.perfpin.report.RecordingFile}), which {@code run} summarises
 * at the end.
 */
final class ChildJvms implements AutoCloseable {
    private final ProcessHandle launched;
    private final long watched;
    private final ThreadsOption threads;
    private final Map<Long, Child> children = new LinkedHashMap<>();
    /** The pids shown so far, in the order they were found. */
    private final List<Long> shown = new ArrayList<>();

    /** One child JVM's stats file, read at each frame, and the view that renders it. */
    private static final class Child {
        final StatsFileReader reader;
        final TopCommand view = new TopCommand();
        StatsView previous;

        Child(StatsFileReader reader) throws IOException {
            this.reader = reader;
            this.previous = StatsView.read(reader);
        }
    }

    ChildJvms(ProcessHandle launched, long watched, ThreadsOption threads) {
        this.launched = launched;
        this.watched = watched;
        this.threads = threads;
    }

    /** The blocks of the child JVMs that run now, each over the time since the last frame. */
    List<String> frame(boolean terminal) {
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
                StatsView current = StatsView.read(child.reader);
                lines.addAll(child.view.block(pid, current, child.previous, terminal));
                child.previous = current;
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
        List<Long> candidates = launched.descendants().map(ProcessHandle::pid)
                .filter(p -> p != watched && !shown.contains(p)).collect(Collectors.toList());
        for (long pid : candidates) {
            if (!AgentState.of(pid).active()) {
                continue; // no JVM, no agent in it, or one that has not started publishing yet: looked at again later
            }
            try {
                Child child = new Child(StatsFileReader.open(AgentStatsFile.of(pid)));
                child.view.pid = pid;
                child.view.threads = threads;
                children.put(pid, child);
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
