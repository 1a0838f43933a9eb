package io.perfpin.apps;

import io.perfpin.annotations.Counted;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Thread churn: many short-lived threads, {@code churn-0}, {@code churn-1}, ..., each touching a few fresh
 * pages of one {@link PageToucher.FreshMemory} (one page fault per page) and ending. At most {@code --at-once} run at a
 * time: before starting another, the churner joins the oldest. For testing what a per-thread tool does
 * when threads come and go by the thousand; every thread has ended when {@link #run} returns.
 *
 * <p>Usage: {@code java io.perfpin.apps.ThreadChurner [--threads N] [--at-once N] [--pages N] [--annotated]}.
 * {@code --annotated} runs {@link CountedChurn}, counting {@code sched} for each thread.
 *
 * <p>Result: {@code result churn threads=N ran=N pages=N max-at-once=N ms=X.XXX}: threads started, threads
 * that did their work, pages touched in all, and the most that were working at the same moment.
 */
public final class ThreadChurner {
    private ThreadChurner() {}

    public record Options(int threads, int atOnce, int pages, boolean annotated) {
        public static Options from(Args args) {
            return new Options(
                    args.intValue("threads", 2_000, 1, 10_000_000),
                    args.intValue("at-once", 4, 1, 10_000),
                    args.intValue("pages", 4, 0, 1 << 20),
                    args.flag("annotated", "run the @Counted(\"sched\") churn threads"));
        }
    }

    public record Result(int threads, int ran, long pages, int maxAtOnce, long nanos) implements WorkloadResult {
        @Override
        public String line() {
            return new ResultLine("churn")
                    .add("threads", threads)
                    .add("ran", ran)
                    .add("pages", pages)
                    .add("max-at-once", maxAtOnce)
                    .add("ms", nanos / 1e6)
                    .toString();
        }
    }

    public static Result run(Options options) throws InterruptedException {
        try (PageToucher.FreshMemory memory = PageToucher.FreshMemory.open()) {
            Churn churn = options.annotated()
                    ? CountedChurn.create(memory, options.pages())
                    : new Churn(memory, options.pages());
            long start = System.nanoTime();
            Crew crew = new Crew();
            for (int i = 0; i < options.threads(); i++) {
                if (crew.unjoined() == options.atOnce()) {
                    crew.joinOldest();
                }
                crew.start("churn-" + i, churn);
            }
            crew.joinAll();
            return new Result(
                    options.threads(),
                    churn.ran.get(),
                    churn.pages.get(),
                    churn.maxWorking.get(),
                    System.nanoTime() - start);
        }
    }

    public static void main(String[] args) {
        Launcher.main(ThreadChurner.class, args, Options::from, ThreadChurner::run);
    }

    /** The work of one churn thread; one instance serves them all and keeps the tally. */
    static class Churn implements Runnable {
        private final PageToucher.FreshMemory memory;
        private final int pagesEach;
        private final AtomicInteger working = new AtomicInteger();
        final AtomicInteger maxWorking = new AtomicInteger();
        final AtomicInteger ran = new AtomicInteger();
        final AtomicLong pages = new AtomicLong();

        Churn(PageToucher.FreshMemory memory, int pagesEach) {
            this.memory = memory;
            this.pagesEach = pagesEach;
        }

        @Override
        public void run() {
            maxWorking.accumulateAndGet(working.incrementAndGet(), Math::max);
            pages.addAndGet(memory.touch((long) pagesEach * PageToucher.PAGE_SIZE));
            working.decrementAndGet();
            ran.incrementAndGet();
        }
    }

    /**
     * A churn thread counted for scheduling events when the perfpin agent runs. Made only through {@link #create},
     * typed as a plain {@link Churn}: the verifier of {@link ThreadChurner#run} then has no reason to load this
     * class, whose annotation would make the agent load its weaver into a churn that asked for no annotations.
     */
    @Counted("sched")
    static final class CountedChurn extends Churn {
        private CountedChurn(PageToucher.FreshMemory memory, int pagesEach) {
            super(memory, pagesEach);
        }

        static Churn create(PageToucher.FreshMemory memory, int pagesEach) {
            return new CountedChurn(memory, pagesEach);
        }

        @Override
        public void run() {
            super.run();
        }
    }
}
