package io.perfpin.registry;

import io.perfpin.counter.DescriptorBudget;
import io.perfpin.counter.RefusedEvents;
import io.perfpin.counter.ThreadCounters;
import io.perfpin.event.EventList;
import io.perfpin.jvm.ThisProcess;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.options.DescriptorShare;
import java.io.IOException;

/**
 * A thread's counters, opened on it before its registry starts: premain's, for {@code main}, whose {@code main()} then
 * runs, counted from its first instruction, while the registry starts on a thread of its own. The descriptor budget
 * they were taken from is the registry's: what the application had free before perfpin opened anything.
 * {@link ThreadRegistry#start(Syscalls, RegistryConfig, NoticeSink, CountedAhead)} takes the thread in as enrolled when
 * its counters opened; where no registry does, {@link #close} closes them.
 */
public final class CountedAhead implements AutoCloseable {
    private final Thread thread;
    private final int tid;
    private final long enrolledNanos;
    private final DescriptorBudget descriptors;
    /**
     * Null once a registry took them in, or they were closed. Guarded by this, not an AtomicReference, whose first use
     * in a JVM looks up a VarHandle as premain runs.
     */
    private ThreadCounters counters;
    /** Set once a registry took them in; guarded by this. */
    private boolean taken;

    private CountedAhead(
            Thread thread, int tid, long enrolledNanos, DescriptorBudget descriptors, ThreadCounters counters) {
        this.thread = thread;
        this.tid = tid;
        this.enrolledNanos = enrolledNanos;
        this.descriptors = descriptors;
        this.counters = counters;
    }

    /**
     * Counts the calling thread from now on with {@code events}, taking its descriptors from {@code share} of those
     * the process has free.
     *
     * @throws IOException when /proc cannot say how many descriptors are free
     */
    public static CountedAhead currentThread(Syscalls syscalls, EventList events, DescriptorShare share)
            throws IOException {
        DescriptorBudget descriptors = DescriptorBudget.forThisProcess(share);
        int tid = syscalls.gettid();
        long enrolledNanos = System.nanoTime();
        ThreadCounters counters = ThreadCounters.open(
                syscalls, ThisProcess.pid(), tid, events.events(), new RefusedEvents(), descriptors);
        return new CountedAhead(Thread.currentThread(), tid, enrolledNanos, descriptors, counters);
    }

    /** The thread counted. */
    public Thread thread() {
        return thread;
    }

    int tid() {
        return tid;
    }

    long enrolledNanos() {
        return enrolledNanos;
    }

    DescriptorBudget descriptors() {
        return descriptors;
    }

    /** The counters, for the registry that takes the thread in; null once taken or closed. */
    synchronized ThreadCounters take() {
        ThreadCounters open = counters;
        if (open != null) {
            counters = null;
            taken = true;
        }
        return open;
    }

    /**
     * Closes the counters unless a registry took them in: a start that failed, or the thread's end before any registry
     * was there to record it, when no record may claim what the thread did not do (the same thread runs on after
     * main() as the JVM's {@code DestroyJavaVM}).
     *
     * @return whether a registry took them in
     */
    public boolean closeUntaken() {
        ThreadCounters open;
        synchronized (this) {
            open = counters;
            counters = null;
            if (open == null) {
                return taken;
            }
        }
        open.close();
        return false;
    }

    @Override
    public void close() {
        closeUntaken();
    }
}
