package io.perfpin.cli;

import io.perfpin.cpu.CpuAssignment;
import io.perfpin.cpu.CpuReservations;
import io.perfpin.cpu.CpuSet;
import io.perfpin.cpu.CpuTopology;
import io.perfpin.cpu.Placement;
import io.perfpin.cpu.ThreadAffinity;
import io.perfpin.nativeio.Errno;
import io.perfpin.nativeio.NativeException;
import io.perfpin.report.TerminalText;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Threads of another process that a command pinned, each with the affinity it had before: closing gives it
 * back and frees the CPUs reserved for it, so a command leaves the process as it found it.
 */
final class ThreadPins implements AutoCloseable {
    private final ThreadAffinity affinity;
    private final Map<Integer, Pin> pins = new LinkedHashMap<>();
    private CpuTopology topology;
    private CpuReservations reservations;

    private record Pin(String name, CpuSet before, CpuAssignment assignment) {
    }

    ThreadPins(ThreadAffinity affinity) {
        this.affinity = affinity;
    }

    /**
     * Pins thread {@code tid} as {@code placement} says; returns the CPUs it now runs on.
     *
     * @throws IllegalArgumentException when the placement names CPUs this process may not use
     * @throws IllegalStateException    when no isolated CPU or whole core is free
     */
    CpuSet pin(int tid, String name, Placement placement) throws IOException {
        if (topology == null) {
            topology = CpuTopology.live();
            reservations = CpuReservations.openDefault();
        }
        CpuSet before = affinity.get(tid);
        CpuAssignment assignment = placement.assign(topology, reservations, tid, name);
        try {
            affinity.set(tid, assignment.cpus());
        } catch (RuntimeException e) {
            assignment.close();
            throw e;
        }
        pins.put(tid, new Pin(name, before, assignment));
        return assignment.cpus();
    }

    boolean isPinned(int tid) {
        return pins.containsKey(tid);
    }

    /**
     * Gives every pinned thread its affinity back, and says so for each that could not have it (one that
     * ended meanwhile needs nothing back).
     */
    @Override
    public void close() {
        pins.forEach((tid, pin) -> {
            try {
                affinity.set(tid, pin.before());
            } catch (NativeException e) {
                if (e.errno() != Errno.ESRCH) {
                    System.err.println(TerminalText.escape("perfpin: cannot give thread '" + pin.name() + "' (tid "
                            + tid + ") its CPUs " + pin.before() + " back: " + e.getMessage()));
                }
            } finally {
                pin.assignment().close();
            }
        });
        pins.clear();
    }
}
