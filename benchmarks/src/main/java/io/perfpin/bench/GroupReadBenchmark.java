package io.perfpin.bench;

import io.perfpin.counter.CounterGroup;
import io.perfpin.counter.CounterSnapshot;
import io.perfpin.nativeio.Backend;
import io.perfpin.nativeio.Backends;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * {@link CounterGroup#read} of the four {@link ReadEvents} on the benchmark thread itself, per backend: what
 * the sampler pays per thread per tick, and what readloop.c pays without a JVM. Run settings are
 * {@link CounterReadCost}'s, so they are written in one place.
 */
@State(Scope.Thread)
public class GroupReadBenchmark {
    @Param({"JNI", "JFFI", "JNA"})
    public String backend;

    private CounterGroup group;
    private CounterSnapshot snapshot;

    @Setup
    public void open() {
        group = CounterGroup.open(Backends.load(Backend.valueOf(backend)), 0, ReadEvents.parse(ReadEvents.LIST));
        // A refused event or a second kernel group would time something other than the C loop's one read.
        if (!group.unsupported().isEmpty() || group.kernelGroups() != 1) {
            throw new IllegalStateException("expected one kernel group of four events, got " + group.kernelGroups()
                    + " groups; refused: " + group.unsupported());
        }
        snapshot = group.newSnapshot();
    }

    @Benchmark
    public int read() {
        return group.read(snapshot);
    }

    @TearDown
    public void close() {
        group.close();
    }
}
