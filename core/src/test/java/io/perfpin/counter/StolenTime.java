package io.perfpin.counter;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;

/**
 * CPU time the hypervisor stole from this virtual machine, all CPUs together, from /proc/stat. perf's
 * task-clock runs on the scheduler's clock while a thread is on a CPU, stolen time included; the thread's CPU
 * time (CLOCK_THREAD_CPUTIME_ID, ThreadMXBean) leaves steal out. On a busy host the two differ by what was
 * stolen, so tests that compare them allow for it.
 */
final class StolenTime {
    /** USER_HZ, the unit of /proc/stat, is 100 on every Linux architecture perfpin builds for. */
    private static final long NANOS_PER_TICK = 10_000_000L;

    private StolenTime() {}

    static long nanos() throws IOException {
        String[] fields =
                Files.readAllLines(Paths.get("/proc/stat")).get(0).trim().split("\\s+");
        // cpu user nice system idle iowait irq softirq steal ...
        return fields.length > 8 ? Long.parseLong(fields[8]) * NANOS_PER_TICK : 0;
    }

    /** The most a thread can have lost over an interval: all that was stolen, and a tick per CPU of rounding. */
    static long boundSince(long stolenBefore) throws IOException {
        return nanos() - stolenBefore + Runtime.getRuntime().availableProcessors() * NANOS_PER_TICK;
    }
}
