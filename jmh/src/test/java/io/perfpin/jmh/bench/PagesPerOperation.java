package io.perfpin.jmh.bench;

import io.perfpin.apps.PageToucher;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * Each operation takes exactly {@code -Dperfpin.test.pages} page faults: it maps that many fresh pages, writes one
 * byte to each, and unmaps them ({@link PageToucher.FreshMemory#touchAndUnmap}). The property reaches a fork only
 * through {@code -jvmArgsAppend}, so a run that counts the pages also shows that option still works beside the
 * profiler's own.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(1)
public class PagesPerOperation {
    private PageToucher.FreshMemory memory;
    private long bytes;

    @Setup(Level.Trial)
    public void open() {
        Integer pages = Integer.getInteger("perfpin.test.pages");
        if (pages == null) {
            throw new IllegalStateException("no -Dperfpin.test.pages in this JVM: -jvmArgsAppend did not reach it");
        }
        bytes = (long) pages * PageToucher.PAGE_SIZE;
        memory = PageToucher.FreshMemory.open();
    }

    @TearDown(Level.Trial)
    public void close() {
        memory.close();
    }

    @Benchmark
    public long touch() {
        return memory.touchAndUnmap(bytes);
    }
}
