package io.perfpin.agent.apps;

import io.perfpin.annotations.Counted;
import io.perfpin.apps.PageToucher;

/** A method measured on each call by the agent. */
final class CountedWork {
    private CountedWork() {
    }

    @Counted({"page-faults", "task-clock"})
    static long touch(int pages) {
        return PageToucher.touch((long) pages * PageToucher.PAGE_SIZE);
    }
}
