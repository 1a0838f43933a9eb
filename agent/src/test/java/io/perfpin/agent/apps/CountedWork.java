package io.perfpin.agent.apps;

import io.perfpin.annotations.Counted;
import io.perfpin.apps.PageToucher;

/** A method measured on each call by the agent. */
final class CountedWork {
    private CountedWork() {}

    @Counted({"page-faults", "task-clock"})
    static long touch(int pages) {
        return PageToucher.touch((long) pages * PageToucher.PAGE_SIZE);
    }

    /** Computes, sleeps (a virtual thread unmounts, and may resume on another carrier), and computes again. */
    @Counted("task-clock")
    static void computeAroundSleep(long iterations, int sleepMillis) {
        AgentTestApp.compute(iterations);
        try {
            Thread.sleep(sleepMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        AgentTestApp.compute(iterations);
    }
}
