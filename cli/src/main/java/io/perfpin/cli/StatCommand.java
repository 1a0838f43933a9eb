package io.perfpin.cli;

import io.perfpin.counter.CounterGroup;
import io.perfpin.counter.CounterSnapshot;
import io.perfpin.cpu.ThreadAffinity;
import io.perfpin.event.EventList;
import io.perfpin.event.EventParser;
import io.perfpin.jvm.JavaThreadInfo;
import io.perfpin.jvm.ThreadDump;
import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.options.Durations;
import io.perfpin.report.ThreadRecords;
import io.perfpin.report.ThreadReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Collectors;

/**
 * Counts another JVM's threads without loading anything into it, like {@code perf stat -t} with Java
 * names: the JVM's own thread dump maps each Java thread to its TID, and perfpin opens counters on those
 * TIDs from outside.
 */
@Command(name = "stat", mixinStandardHelpOptions = true,
        description = "Count a running JVM's threads from outside, named by its thread dump; no agent is loaded.")
final class StatCommand implements Callable<Integer> {
    /** The JVM's own service threads: not the application's, so not counted unless --threads asks. */
    private static final Pattern JVM_SERVICE_THREADS = Pattern.compile("Reference Handler|Finalizer|Signal Dispatcher"
            + "|Service Thread|Monitor Deflation Thread|C[12] CompilerThread\\d+|Sweeper thread|Common-Cleaner"
            + "|Notification Thread|Attach Listener|DestroyJavaVM|process reaper");

    @Option(names = "--pid", required = true, paramLabel = "PID", description = "The JVM to count.")
    long pid;

    @Option(names = "--threads", paramLabel = "REGEX",
            description = "Threads to count, by name (default: the application's, not the JVM's own).")
    String threads;

    @Option(names = "--events", paramLabel = "LIST", defaultValue = "sched",
            description = "Events and presets, comma-separated (default: ${DEFAULT-VALUE}).")
    String events;

    @Option(names = "--duration", paramLabel = "DURATION", defaultValue = "5s",
            description = "How long to count (default: ${DEFAULT-VALUE}).")
    String duration;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
            description = "table or json (JSON lines, one thread record per thread).")
    String format;

    @Override
    public Integer call() throws Exception {
        long nanos = Durations.parse(duration).toNanos();
        if (!format.equals("table") && !format.equals("json")) {
            throw new IllegalArgumentException("bad --format '" + format + "': expected table or json");
        }
        Pattern selected = compile(threads);
        EventList eventList = EventList.parse(events, new EventParser());
        Syscalls syscalls = Backends.syscalls();
        ThreadAffinity affinity = new ThreadAffinity(syscalls);
        List<JavaThreadInfo> chosen = ThreadDump.of(pid).javaThreads().stream()
                .filter(t -> selected == null ? !JVM_SERVICE_THREADS.matcher(t.name()).matches()
                        : selected.matcher(t.name()).matches())
                .collect(Collectors.toList());
        if (chosen.isEmpty()) {
            throw new IllegalArgumentException("no thread of pid " + pid + " matches --threads '" + threads + "'");
        }
        List<CounterGroup> groups = new ArrayList<>();
        List<String> cpus = new ArrayList<>();
        try {
            for (JavaThreadInfo t : chosen) {
                groups.add(CounterGroup.open(syscalls, t.tid(), eventList.events()));
                cpus.add(cpusOf(affinity, t.tid()));
            }
            long start = System.nanoTime();
            Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
            long wall = System.nanoTime() - start;
            List<ThreadReport> reports = new ArrayList<>();
            for (int i = 0; i < chosen.size(); i++) {
                CounterSnapshot snapshot = groups.get(i).newSnapshot();
                groups.get(i).read(snapshot);
                JavaThreadInfo t = chosen.get(i);
                reports.add(ThreadReport.of(t.name(), t.tid(), t.javaId(), cpus.get(i), eventList, snapshot,
                        groups.get(i).unsupported(), wall));
            }
            if (format.equals("json")) {
                long now = System.currentTimeMillis();
                reports.forEach(r -> System.out.println(ThreadRecords.toJson(ThreadRecords.THREAD, now, r)));
            } else {
                ReportTable.render(reports).forEach(System.out::println);
            }
        } finally {
            groups.forEach(CounterGroup::close);
        }
        return ExitCode.OK;
    }

    private static String cpusOf(ThreadAffinity affinity, int tid) {
        try {
            return affinity.get(tid).toString();
        } catch (RuntimeException e) {
            return ""; // the thread ended since the dump
        }
    }

    private static Pattern compile(String regex) {
        if (regex == null) {
            return null;
        }
        try {
            return Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("bad --threads '" + regex + "': " + e.getDescription());
        }
    }
}
