package io.perfpin.jmh;

import io.perfpin.cpu.CpuAssignment;
import io.perfpin.cpu.CpuReservations;
import io.perfpin.cpu.CpuSet;
import io.perfpin.cpu.CpuTopology;
import io.perfpin.cpu.Placement;
import io.perfpin.cpu.ThreadAffinity;
import io.perfpin.nativeio.Syscalls;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * JMH's worker threads pinned for the measurement, each with the affinity it had before: {@link #close} gives
 * them back and frees the CPUs reserved for them. A worker that cannot be pinned is said once, and is counted where
 * it runs.
 */
final class WorkerPins implements AutoCloseable {
    private final ThreadAffinity affinity;
    private final Placement placement;
    private final Map<Integer, Pin> pins = new LinkedHashMap<>();
    private CpuTopology topology;
    private CpuReservations reservations;

    private record Pin(CpuSet before, CpuAssignment assignment) {
    }

    WorkerPins(Syscalls syscalls, Placement placement) {
        this.affinity = new ThreadAffinity(syscalls);
        this.placement = placement;
    }

    /** Pins each of {@code workers} (TID to name) not pinned yet. */
    void pin(Map<Integer, String> workers) {
        workers.forEach((tid, name) -> {
            if (!pins.containsKey(tid)) {
                pin(tid, name);
            }
        });
    }

    private void pin(int tid, String name) {
        CpuAssignment assignment = null;
        try {
            if (topology == null) {
                topology = CpuTopology.live();
                reservations = CpuReservations.openDefault();
            }
            CpuSet before = affinity.get(tid);
            assignment = placement.assign(topology, reservations, tid, name);
            affinity.set(tid, assignment.cpus());
            pins.put(tid, new Pin(before, assignment));
        } catch (IOException | RuntimeException e) {
            if (assignment != null) {
                assignment.close();
            }
            Notes.say("cannot pin '" + name + "' (pin=" + placement + "), it runs where the scheduler puts it: "
                    + e.getMessage());
        }
    }

    /**
     * Every pinned worker gets its affinity back, unless it has ended, and its CPUs are free again. JMH's workers
     * outlive the measurement, so a TID here is still the worker's.
     */
    @Override
    public void close() {
        pins.forEach((tid, pin) -> {
            try {
                affinity.set(tid, pin.before());
            } catch (RuntimeException ended) {
                // a worker that ended has no affinity left to give back
            } finally {
                pin.assignment().close();
            }
        });
        pins.clear();
    }
}
