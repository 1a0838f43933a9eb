package io.perfpin.registry;

import io.perfpin.cpu.CpuAssignment;
import io.perfpin.cpu.CpuReservations;
import io.perfpin.cpu.CpuSet;
import io.perfpin.cpu.CpuTopology;
import io.perfpin.cpu.Placement;
import io.perfpin.cpu.ThreadAffinity;
import io.perfpin.stats.AgentNotice;

import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The registry's pinning policy: where a thread goes for its placement (CPU reservations shared with other
 * perfpin processes), what it gets back when perfpin lets go of it, and what a thread started by a pinned thread
 * runs with. A pin that cannot be had is said once and the thread runs unpinned.
 */
final class Pinner {
    private final ThreadAffinity affinity;
    private final Notices notices;
    /** Every mask perfpin pinned a thread to: a new thread found with one of them inherited it. */
    private final Set<CpuSet> pinnedMasks = ConcurrentHashMap.newKeySet();
    /** The affinity of the process when counting began: what an unpinned thread runs with. */
    private final CpuSet processCpus;
    /** Its text, worked out once: most threads run with it. */
    private final String processCpusText;
    private volatile CpuTopology topology;
    private volatile CpuReservations reservations;

    Pinner(ThreadAffinity affinity, Notices notices) {
        this.affinity = affinity;
        this.notices = notices;
        this.processCpus = affinity.get(0);
        this.processCpusText = processCpus.toString();
    }

    /** Pins thread {@code tid}; null, and said once, when the placement cannot be had. */
    Pinning pin(int tid, String name, Placement placement) {
        CpuAssignment assignment = null;
        try {
            CpuSet original = affinity.get(tid);
            assignment = placement.assign(topology(), reservations(), tid, name);
            affinity.set(tid, assignment.cpus());
            pinnedMasks.add(assignment.cpus());
            return new Pinning(original, assignment);
        } catch (IOException | RuntimeException e) {
            notices.sayOnce(AgentNotice.refused("cannot pin thread '" + name + "' (" + placement + "): "
                    + e.getMessage()));
            if (assignment != null) {
                assignment.close();
            }
            return null;
        }
    }

    /** Gives a thread back the affinity it had before perfpin pinned it, and frees its reservation. */
    void unpin(TrackedThread tracked) {
        Pinning pinning = tracked.pinning;
        tracked.pinning = null;
        unpin(tracked.thread, tracked.tid, tracked.name, pinning);
    }

    /** As {@link #unpin(TrackedThread)}, for a thread pinned by {@code pinning} (nothing when null). */
    void unpin(Thread thread, int tid, String name, Pinning pinning) {
        if (pinning == null) {
            return;
        }
        try {
            if (thread.isAlive()) {
                affinity.set(tid, pinning.originalCpus);
            }
        } catch (RuntimeException e) {
            notices.sayOnce(AgentNotice.refused("cannot restore the affinity of '" + name + "': "
                    + e.getMessage()));
        } finally {
            pinning.assignment.close();
        }
    }

    /**
     * For the calling thread as it starts: Linux gives a new thread its creator's affinity, so a thread started by
     * a pinned thread would silently run pinned too. Unless {@code inheritPin}, it gets the process's back.
     *
     * @return true when the thread runs with a pin it inherited (and keeps)
     */
    boolean threadStarting(boolean inheritPin) {
        if (pinnedMasks.isEmpty()) {
            return false; // nothing pinned yet, so nothing to inherit: no system call on this path
        }
        int tid = affinity.currentTid();
        CpuSet mask = affinity.get(tid);
        if (mask.equals(processCpus) || !pinnedMasks.contains(mask)) {
            return false;
        }
        if (inheritPin) {
            return true;
        }
        try {
            affinity.set(tid, processCpus);
        } catch (RuntimeException e) {
            notices.sayOnce(AgentNotice.info("cannot reset the inherited pin of '" + Thread.currentThread().getName()
                    + "': " + e.getMessage()));
        }
        return false;
    }

    /** The CPUs thread {@code tid} may run on, as text; empty when it cannot be read (the thread is gone). */
    String cpusOf(int tid) {
        try {
            CpuSet cpus = affinity.get(tid);
            return cpus.equals(processCpus) ? processCpusText : cpus.toString();
        } catch (RuntimeException e) {
            return "";
        }
    }

    /**
     * Reads the CPU topology ahead of the first pin, off the threads being pinned. When it cannot (a process out of
     * file descriptors), nothing is said: no pin may ever need it, and a pin that does reads it again and says why
     * it could not pin.
     */
    void readTopology() {
        try {
            topology();
        } catch (RuntimeException e) {
            // read again by the first pin
        }
    }

    private CpuTopology topology() {
        if (topology == null) {
            topology = CpuTopology.live();
        }
        return topology;
    }

    private CpuReservations reservations() throws IOException {
        if (reservations == null) {
            reservations = CpuReservations.openDefault();
        }
        return reservations;
    }
}
