package io.perfpin.cpu;

import java.util.Optional;

/**
 * Where one thread may run, as a {@link Placement} resolved it: the CPUs to set as its affinity, and the
 * reservation that keeps other pinned threads off them when the placement is exclusive.
 */
public final class CpuAssignment implements AutoCloseable {
    private final Placement placement;
    private final CpuSet cpus;
    private final CpuReservation reservation;

    CpuAssignment(Placement placement, CpuSet cpus, CpuReservation reservation) {
        this.placement = placement;
        this.cpus = cpus;
        this.reservation = reservation;
    }

    public Placement placement() {
        return placement;
    }

    /** The affinity to give the thread. */
    public CpuSet cpus() {
        return cpus;
    }

    /** The CPUs held for this thread alone: present for {@code isolated} and {@code core}. */
    public Optional<CpuReservation> reservation() {
        return Optional.ofNullable(reservation);
    }

    /** Releases the reservation, if any; the thread's affinity is left as it is. */
    @Override
    public void close() {
        if (reservation != null) {
            reservation.close();
        }
    }

    @Override
    public String toString() {
        return placement + " -> " + cpus.inWords() + (reservation == null ? "" : " (reserved)");
    }
}
