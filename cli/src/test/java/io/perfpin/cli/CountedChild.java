package io.perfpin.cli;

import io.perfpin.annotations.Counted;
import io.perfpin.apps.PageToucher;

/**
 * A JVM whose main thread calls a {@code @Counted} method, touching a few pages each time, CALLS times and exits:
 * what {@code run} reports as its counted methods.
 *
 * <p>Usage: {@code CountedChild CALLS}.
 */
public final class CountedChild {
    private static final int PAGES = 16;

    private CountedChild() {}

    public static void main(String[] args) {
        for (int i = Integer.parseInt(args[0]); i > 0; i--) {
            touch();
        }
    }

    @Counted({"page-faults", "task-clock"})
    static long touch() {
        return PageToucher.touch((long) PAGES * PageToucher.PAGE_SIZE);
    }
}
