package io.perfpin.apps;

import java.util.Arrays;
import java.util.concurrent.CountDownLatch;

/**
 * A pool's start: {@code --threads} threads, {@code pool-start-0}, {@code pool-start-1}, ..., started one after
 * another, each staying until the last has started, as a server's pool does as it starts. Each start is timed, from
 * just before {@link Thread#start} to the first instruction of the thread's {@code run()}; the next starts once it
 * ran. What a per-thread tool does as a thread starts is in that time; so is any wait of the kernel's on the way,
 * such as the process's descriptor table growing while every thread holds its descriptors. One thread starts and ends
 * untimed first: what the JVM does once, for the first thread a program starts, is not a pool's.
 *
 * <p>Usage: {@code java io.perfpin.apps.PoolStart [--threads N]}.
 *
 * <p>Result: {@code result pool threads=N slowest-ms=X median-ms=X over-2ms=K}: the slowest start, the median start,
 * and how many took over 2 ms.
 */
public final class PoolStart {
    private static final long SLOW_NANOS = 2_000_000;

    private PoolStart() {}

    public record Options(int threads) {
        public static Options from(Args args) {
            return new Options(args.intValue("threads", 200, 1, 100_000));
        }
    }

    public record Result(int threads, long slowestNanos, long medianNanos, int slow) implements WorkloadResult {
        @Override
        public String line() {
            return new ResultLine("pool")
                    .add("threads", threads)
                    .add("slowest-ms", slowestNanos / 1e6)
                    .add("median-ms", medianNanos / 1e6)
                    .add("over-2ms", slow)
                    .toString();
        }
    }

    public static Result run(Options options) throws InterruptedException {
        Crew.run("pool-start-warm-up", new Member(new CountDownLatch(0), new CountDownLatch(1), new long[1], 0));
        CountDownLatch everyoneStarted = new CountDownLatch(1);
        long[] starts = new long[options.threads()];
        long[] ran = new long[starts.length];
        Crew crew = new Crew();
        try {
            for (int i = 0; i < starts.length; i++) {
                CountDownLatch running = new CountDownLatch(1);
                long before = System.nanoTime();
                crew.start("pool-start-" + i, new Member(everyoneStarted, running, ran, i));
                running.await(); // after the thread's countDown: its ran[i] is seen here
                starts[i] = ran[i] - before;
            }
        } finally {
            everyoneStarted.countDown();
            crew.joinAll();
        }
        long[] sorted = starts.clone();
        Arrays.sort(sorted);
        int slow = 0;
        for (long start : starts) {
            if (start > SLOW_NANOS) {
                slow++;
            }
        }
        return new Result(starts.length, sorted[sorted.length - 1], sorted[sorted.length / 2], slow);
    }

    public static void main(String[] args) {
        Launcher.main(PoolStart.class, args, Options::from, PoolStart::run);
    }

    /** A pool's thread: notes when it began, says it runs, then stays until every thread of the pool has started. */
    private static final class Member implements Runnable {
        private final CountDownLatch everyoneStarted;
        private final CountDownLatch running;
        private final long[] ran;
        private final int index;

        Member(CountDownLatch everyoneStarted, CountDownLatch running, long[] ran, int index) {
            this.everyoneStarted = everyoneStarted;
            this.running = running;
            this.ran = ran;
            this.index = index;
        }

        @Override
        public void run() {
            ran[index] = System.nanoTime();
            running.countDown();
            try {
                everyoneStarted.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
