package io.perfpin.bench;

import io.perfpin.counter.CounterGroup;
import io.perfpin.counter.CounterSnapshot;
import io.perfpin.counter.SelfCounters;
import io.perfpin.nativeio.Backend;
import io.perfpin.nativeio.Backends;
import java.util.function.ToIntFunction;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One read of a thread's counters, on the benchmark thread itself, by one of two readers:
 * <ul>
 * <li>{@code group/BACKEND}: {@link CounterGroup#read} of the four {@link ReadEvents} through that backend, what
 * the sampler pays per thread per tick, and what readloop.c pays without a JVM;</li>
 * <li>{@code self/EVENTS}: {@link SelfCounters#read} of those events on the JNI backend, the only one with
 * perfpin's rdpmc code, as a {@code @Counted} method reads around each call.</li>
 * </ul>
 * Each reader runs in a JVM fork of its own, so the call through {@code read} sees one implementation only.
 * Run settings are {@link CounterReadCost}'s, so they are written in one place.
 */
@State(Scope.Thread) // set up on the thread that reads: self counters refuse any other reader
public class CounterReadBenchmark {
    static final String GROUP = "group/";
    static final String SELF = "self/";

    @Param({GROUP + "JNI"})
    public String reader;

    private ToIntFunction<CounterSnapshot> read;
    private AutoCloseable counters;
    private CounterSnapshot snapshot;

    @Setup
    public void open() {
        if (reader.startsWith(GROUP)) {
            Backend backend = Backend.valueOf(reader.substring(GROUP.length()));
            CounterGroup group = CounterGroup.open(Backends.load(backend), 0, ReadEvents.parse(ReadEvents.LIST));
            counters = group;
            // A refused event or a second kernel group would time something other than the C loop's one read.
            if (!group.unsupported().isEmpty() || group.kernelGroups() != 1) {
                throw new IllegalStateException("expected one kernel group of four events, got " + group.kernelGroups()
                        + " groups; refused: " + group.unsupported());
            }
            read = group::read;
            snapshot = group.newSnapshot();
        } else if (reader.startsWith(SELF)) {
            SelfCounters self =
                    SelfCounters.open(Backends.load(Backend.JNI), ReadEvents.parse(reader.substring(SELF.length())));
            counters = self;
            if (!self.unsupported().isEmpty()) {
                throw new IllegalStateException("refused: " + self.unsupported());
            }
            read = self::read;
            snapshot = self.newSnapshot();
        } else {
            throw new IllegalArgumentException(
                    "reader " + reader + ": expected " + GROUP + "BACKEND or " + SELF + "EVENTS");
        }
    }

    @Benchmark
    public int read() {
        return read.applyAsInt(snapshot);
    }

    @TearDown
    public void close() throws Exception {
        counters.close();
    }
}
