package io.perfpin.apps;

import io.perfpin.annotations.Counted;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;

/**
 * False sharing: two writer threads each increment their own volatile long, first with the two fields
 * next to each other in one object, then with 120 bytes of padding between them, as
 * {@code @Contended} would lay them out. Next to each other, the fields share a cache line, and each
 * write takes the line away from the other writer's CPU; padded, each writer keeps its own line.
 *
 * <p>The padding relies on HotSpot placing a subclass's fields after its superclass's. Objects are aligned
 * to 8 bytes, not to cache lines, so in one object in eight the adjacent fields fall either side of a line
 * boundary, and that run shows no sharing.
 *
 * <p>Usage: {@code java io.perfpin.apps.FalseSharing [--increments N] [--annotated]}. Threads:
 * {@code adjacent-writer-0}, {@code adjacent-writer-1}, then {@code padded-writer-0},
 * {@code padded-writer-1}. {@code --annotated} runs {@link CountedWriter}s, counting {@code sharing} and
 * {@code sched}.
 *
 * <p>Result: {@code result falsesharing increments=N adjacent-ops-per-s=N padded-ops-per-s=N
 * padded-over-adjacent=X.XXX}, increments per writer, and increments per second by both writers together.
 */
public final class FalseSharing {
    private FalseSharing() {}

    public record Options(int increments, boolean annotated) {
        public static Options from(Args args) {
            return new Options(
                    args.intValue("increments", 20_000_000, 1, 1_000_000_000),
                    args.flag("annotated", "run the @Counted({\"sharing\",\"sched\"}) writers"));
        }
    }

    /** One layout's run: each writer's final count, and the time from the first start to the last end. */
    public record LayoutRun(long first, long second, long nanos) {
        public double opsPerSecond() {
            return (first + second) * 1e9 / nanos;
        }
    }

    public record Result(int increments, LayoutRun adjacent, LayoutRun padded) implements WorkloadResult {
        /** How many times faster the padded layout ran. */
        public double paddedOverAdjacent() {
            return padded.opsPerSecond() / adjacent.opsPerSecond();
        }

        @Override
        public String line() {
            return new ResultLine("falsesharing")
                    .add("increments", increments)
                    .add("adjacent-ops-per-s", Math.round(adjacent.opsPerSecond()))
                    .add("padded-ops-per-s", Math.round(padded.opsPerSecond()))
                    .add("padded-over-adjacent", paddedOverAdjacent())
                    .toString();
        }
    }

    public static Result run(Options options) throws InterruptedException {
        return new Result(
                options.increments(), run("adjacent", Counters.NEXT, options), run("padded", Counters.FAR, options));
    }

    public static void main(String[] args) {
        Launcher.main(FalseSharing.class, args, Options::from, FalseSharing::run);
    }

    /** Writer 0 increments {@code first}, writer 1 the counter in {@code secondSlot}, on fresh counters. */
    private static LayoutRun run(String layout, int secondSlot, Options options) throws InterruptedException {
        Counters counters = new Counters();
        CyclicBarrier start = new CyclicBarrier(2);
        int[] slots = {Counters.FIRST, secondSlot};
        Writer[] writers = new Writer[slots.length];
        Crew crew = new Crew();
        for (int i = 0; i < writers.length; i++) {
            writers[i] = options.annotated()
                    ? new CountedWriter(counters, slots[i], options.increments(), start)
                    : new Writer(counters, slots[i], options.increments(), start);
            crew.start(layout + "-writer-" + i, writers[i]);
        }
        crew.joinAll();
        long nanos = Math.max(writers[0].end, writers[1].end) - Math.min(writers[0].start, writers[1].start);
        return new LayoutRun(counters.count(Counters.FIRST), counters.count(secondSlot), nanos);
    }

    /** {@code next} directly after {@code first}: in one cache line, but for one object in eight. */
    abstract static class Near {
        volatile long first;
        volatile long next;
    }

    /** Fourteen longs after {@code next}, so that what follows starts 128 bytes after {@code first}. */
    abstract static class Gap extends Near {
        long p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14;
    }

    /**
     * Three counters: {@code next} 8 bytes after {@code first}, {@code far} 128 bytes after it, two cache
     * lines because Intel's spatial prefetcher fetches lines in pairs. Each run uses {@code first} and one
     * of the others, and leaves the third alone.
     */
    static final class Counters extends Gap {
        static final int FIRST = 0;
        static final int NEXT = 1;
        static final int FAR = 2;

        volatile long far;

        void increment(int slot) {
            switch (slot) {
                case FIRST -> first++;
                case NEXT -> next++;
                default -> far++;
            }
        }

        long count(int slot) {
            return switch (slot) {
                case FIRST -> first;
                case NEXT -> next;
                default -> far;
            };
        }
    }

    /** Increments one counter; starts together with the other writer and times itself. */
    static class Writer implements Runnable {
        private final Counters counters;
        private final int slot;
        private final int increments;
        private final CyclicBarrier startTogether;
        long start;
        long end;

        Writer(Counters counters, int slot, int increments, CyclicBarrier startTogether) {
            this.counters = counters;
            this.slot = slot;
            this.increments = increments;
            this.startTogether = startTogether;
        }

        @Override
        public void run() {
            try {
                startTogether.await();
            } catch (InterruptedException | BrokenBarrierException e) {
                throw new IllegalStateException("the writers could not start together", e);
            }
            start = System.nanoTime();
            for (int i = 0; i < increments; i++) {
                counters.increment(slot);
            }
            end = System.nanoTime();
        }
    }

    /** A writer counted for sharing and scheduling when the perfpin agent runs. */
    @Counted({"sharing", "sched"})
    static final class CountedWriter extends Writer {
        CountedWriter(Counters counters, int slot, int increments, CyclicBarrier startTogether) {
            super(counters, slot, increments, startTogether);
        }

        @Override
        public void run() {
            super.run();
        }
    }
}
