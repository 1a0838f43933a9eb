package io.perfpin.cli;

import io.perfpin.counter.CounterGroup;
import io.perfpin.counter.CounterSnapshot;
import io.perfpin.cpu.CpuSet;
import io.perfpin.cpu.ThreadAffinity;
import io.perfpin.event.EventList;
import io.perfpin.jvm.JavaThreadInfo;
import io.perfpin.jvm.LastCpu;
import io.perfpin.jvm.ThreadDump;
import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.options.PinRule;
import io.perfpin.report.Hint;
import io.perfpin.report.Hints;
import io.perfpin.report.Preemptions;
import io.perfpin.report.TerminalText;
import io.perfpin.report.ThreadRecord;
import io.perfpin.report.ThreadRecords;
import io.perfpin.report.ThreadReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * Counts another JVM's threads without loading anything into it, like {@code perf stat -t} with Java
 * names: the JVM's own thread dump maps each Java thread to its TID, and perfpin opens counters on those
 * TIDs from outside. With {@code --pin}, the chosen threads run where the rules say while they are counted,
 * and get their own CPUs back afterwards.
 */
@Command(name = "stat", mixinStandardHelpOptions = true,
        description = {"Count a running JVM's threads from outside, named by its thread dump; no agent is loaded.",
                "Counts for --duration (default 5s), or until Ctrl-C; --pin pins the chosen threads meanwhile."})
final class StatCommand implements Callable<Integer> {
    private static final Duration DEFAULT_DURATION = Duration.ofSeconds(5);
    /** How long counting may wait for pinned threads to move: a thread asleep longer moves later. */
    private static final Duration MOVE_PATIENCE = Duration.ofMillis(100);

    @Option(names = "--pid", required = true, paramLabel = "PID", description = "The JVM to count.")
    long pid;

    @Mixin
    ThreadsOption threads;

    @Mixin
    PinOptions pins;

    @Mixin
    EventsOption events;

    @Mixin
    DurationOption duration;

    @Mixin
    OutputOptions output;

    @Override
    public Integer call() throws Exception {
        EventList eventList = events.eventList();
        List<JavaThreadInfo> chosen = ThreadDump.of(pid).javaThreads().stream()
                .filter(t -> threads.selects(t.name())).collect(Collectors.toList());
        if (chosen.isEmpty()) {
            throw new IllegalArgumentException("no thread of pid " + pid + " matches " + threads.describe());
        }
        Syscalls syscalls = Backends.syscalls();
        ThreadAffinity affinity = new ThreadAffinity(syscalls);
        List<CounterGroup> groups = new ArrayList<>();
        try (StopSignal stop = StopSignal.install();
             ReportOutput out = output.open();
             ThreadPins pinned = new ThreadPins(syscalls, pid)) {
            pin(chosen, pinned);
            // Pinned first, and on their new CPUs, so that the move is not counted as a migration of their own.
            pinned.awaitOnTheirCpus(chosen.stream().map(JavaThreadInfo::tid).toList(), MOVE_PATIENCE);
            List<String> cpus = new ArrayList<>();
            List<OptionalLong> preemptedBefore = new ArrayList<>();
            for (JavaThreadInfo t : chosen) {
                groups.add(CounterGroup.open(syscalls, t.tid(), eventList.events()));
                cpus.add(cpusOf(affinity, t.tid()));
                preemptedBefore.add(Preemptions.of(pid, t.tid()));
            }
            long start = System.nanoTime();
            stop.await(duration.orElse(DEFAULT_DURATION));
            long wall = System.nanoTime() - start;
            long now = System.currentTimeMillis();
            List<ThreadRecord> records = new ArrayList<>();
            List<Hint> hints = new ArrayList<>();
            for (int i = 0; i < chosen.size(); i++) {
                CounterSnapshot snapshot = groups.get(i).newSnapshot();
                groups.get(i).read(snapshot);
                JavaThreadInfo t = chosen.get(i);
                ThreadReport report = ThreadReport.of(t.name(), t.tid(), t.javaId(), cpus.get(i), eventList,
                        snapshot, groups.get(i).unsupported(), wall).withLastCpu(LastCpu.of(pid, t.tid()));
                records.add(new ThreadRecord(ThreadRecords.THREAD, now, report));
                hints.addAll(Hints.of(report, pinned.isPinned(t.tid()),
                        since(preemptedBefore.get(i), Preemptions.of(pid, t.tid()))));
            }
            out.records(records);
            out.hints(hints);
        } finally {
            groups.forEach(CounterGroup::close);
        }
        return ExitCode.OK;
    }

    /** Each chosen thread a rule matches is pinned, and said so; a rule that matches none is a likely typo. */
    private void pin(List<JavaThreadInfo> chosen, ThreadPins pinned) throws IOException {
        for (PinRule rule : pins.rules()) {
            if (chosen.stream().noneMatch(t -> rule.matches(t.name()))) {
                System.err.println(TerminalText.escape("perfpin stat: --pin '" + rule + "' matches none of the"
                        + " counted threads (" + threads.describe() + ")"));
            }
        }
        for (JavaThreadInfo t : chosen) {
            PinRule rule = pins.ruleFor(t.name()).orElse(null);
            if (rule != null) {
                CpuSet cpus = pinned.pin(t.tid(), t.name(), rule.placement());
                System.err.println(TerminalText.escape("perfpin stat: pinned '" + t.name() + "' (tid " + t.tid()
                        + ") to CPUs " + cpus + " by --pin '" + rule + "' while counting"));
            }
        }
    }

    private static OptionalLong since(OptionalLong before, OptionalLong after) {
        return before.isPresent() && after.isPresent() ? OptionalLong.of(after.getAsLong() - before.getAsLong())
                : OptionalLong.empty();
    }

    private static String cpusOf(ThreadAffinity affinity, int tid) {
        try {
            return affinity.get(tid).toString();
        } catch (RuntimeException e) {
            return ""; // the thread ended since the dump
        }
    }
}
