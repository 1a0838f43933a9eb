package io.perfpin.bench;

import io.perfpin.counter.CounterSnapshot;
import io.perfpin.counter.SelfCounters;
import io.perfpin.nativeio.Backend;
import io.perfpin.nativeio.Backends;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * {@link SelfCounters#read} on the JNI backend, the only one with perfpin's rdpmc code: a thread reading its
 * own counters, as a {@code @Counted} method does around each call. With software events, or without a
 * PMU, every event is one read(2); {@link CounterReadCost} adds hardware events to {@code events} only where
 * rdpmc works.
 */
@State(Scope.Thread) // set up on the thread that reads: self counters refuse any other reader
public class SelfReadBenchmark {
    @Param({ReadEvents.LIST})
    public String events;

    private SelfCounters counters;
    private CounterSnapshot snapshot;

    @Setup
    public void open() {
        counters = SelfCounters.open(Backends.load(Backend.JNI), ReadEvents.parse(events));
        if (!counters.unsupported().isEmpty()) {
            throw new IllegalStateException("refused: " + counters.unsupported());
        }
        snapshot = counters.newSnapshot();
    }

    @Benchmark
    public int read() {
        return counters.read(snapshot);
    }

    @TearDown
    public void close() {
        counters.close();
    }
}
