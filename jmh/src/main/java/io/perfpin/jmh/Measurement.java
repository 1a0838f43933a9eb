package io.perfpin.jmh;

import io.perfpin.cpu.ThreadPins;
import io.perfpin.jvm.AttachException;
import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.options.ThreadPattern;
import io.perfpin.options.ThreadPatterns;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The profiler's work in the benchmark's JVM, from the last warm-up iteration to the end of the measurement: JMH's
 * workers pinned (when asked), and the selected threads counted over each measurement iteration. Preparing at the
 * last warm-up puts the workers' move to their CPUs, and the cost of opening counters, outside the measurement.
 */
final class Measurement implements AutoCloseable {
    private static final ThreadPattern WORKERS =
            ThreadPatterns.compile("threads option", "threads", ProfilerOptions.WORKERS);

    private final ProfilerOptions options;
    private final Syscalls syscalls;
    private final CountedThreads counted;
    /** Null when the workers are not pinned. */
    private final ThreadPins pins;
    /** The simulated PMU that makes this JVM's hardware counts, named in their results' units; null: the kernel's. */
    private final String simulatedPmu;

    private int iteration;

    private Measurement(ProfilerOptions options, Syscalls syscalls, CountedThreads counted, ThreadPins pins) {
        this.options = options;
        this.syscalls = syscalls;
        this.counted = counted;
        this.pins = pins;
        this.simulatedPmu = syscalls.simulatedPmu();
    }

    static Measurement open(ProfilerOptions options) throws IOException {
        Syscalls syscalls = Backends.syscalls();
        String simulated = Backends.simulatedPmuNotice(syscalls);
        if (simulated != null) {
            Notes.say(simulated);
        }
        return new Measurement(
                options,
                syscalls,
                new CountedThreads(syscalls, options.events()),
                options.pin() == null ? null : ThreadPins.ofThisProcess(syscalls, Notes::say));
    }

    /** Pins the workers not pinned yet, then opens counters for the selected threads not counted yet. */
    void prepare() throws AttachException, IOException {
        if (pins != null) {
            pin(SelectedThreads.of(syscalls, WORKERS));
        }
        counted.open(SelectedThreads.of(syscalls, options.threads()));
    }

    /**
     * Pins each of {@code workers} (TID to name) not pinned yet, and says where when the placement chose the CPUs.
     * A worker that cannot be pinned is said once, and is counted where it runs.
     */
    private void pin(Map<Integer, String> workers) {
        List<ThreadPins.Pin> placed = new ArrayList<>();
        workers.forEach((tid, name) -> {
            if (pins.isPinned(tid)) {
                return;
            }
            try {
                placed.add(pins.pin(tid, name, options.pin()));
            } catch (IOException | RuntimeException e) {
                Notes.say("cannot pin '" + name + "' (pin=" + options.pin() + "), it runs where the scheduler puts"
                        + " it: " + e.getMessage());
            }
        });
        String chosen = ThreadPins.placed("pin=" + options.pin(), placed);
        if (!chosen.isEmpty()) {
            Notes.say(chosen);
        }
    }

    /** A measurement iteration starts. */
    void start() {
        iteration++;
        counted.start();
    }

    /** The measurement iteration ends after {@code operations}: its results, none when no thread was counted. */
    List<PerOpResult> stop(long operations, String workerPrefix) {
        List<ThreadCount> counts = counted.stop();
        if (counts.isEmpty()) {
            Notes.say("measurement iteration " + iteration + " is not counted: no thread matching "
                    + (options.threads() == null ? "" : options.threads()) + " ran as it started (JMH starts its"
                    + " workers in the first iteration, so with -wi 0 they are counted from the second)");
        }
        return PerOperation.of(options.events(), counts, operations, workerPrefix, options.perThread(), simulatedPmu);
    }

    /** Gives the workers their CPUs back and closes the counters. */
    @Override
    public void close() {
        try {
            if (pins != null) {
                pins.close();
            }
        } finally {
            counted.close();
        }
    }
}
