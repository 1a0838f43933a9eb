package io.perfpin.cli;

import io.perfpin.annotations.Counted;
import io.perfpin.apps.PageToucher;

/**
 * A JVM whose main thread calls a {@code @Counted} method, touching a few pages each time, CALLS times and exits:
 * what {@code run} reports as its counted methods. With THREAD, the calls are made on a thread of that name, which
 * the main thread waits for (a long name, for the width of run's tables).
 *
 * <p>Usage: {@code CountedChild CALLS [THREAD]}.
 */
public final class CountedChild {
    private static final int PAGES = 16;

    private CountedChild() {}

    public static void main(String[] args) throws InterruptedException {
        int calls = Integer.parseInt(args[0]);
        Runnable work = () -> {
            for (int i = calls; i > 0; i--) {
                touch();
            }
        };
        if (args.length > 1) {
            Thread named = new Thread(work, args[1]);
            named.start();
            named.join();
        } else {
            work.run();
        }
    }

    @Counted({"page-faults", "task-clock"})
    static long touch() {
        return PageToucher.touch((long) PAGES * PageToucher.PAGE_SIZE);
    }
}
