package io.perfpin.cpu;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Run in a class loader of its own by {@link CpuReservationsTest}: a second copy of perfpin's classes in one JVM, as
 * an application that has perfpin on its class path beside the agent makes, with its own map of what it holds.
 */
public final class SecondCopy {
    private SecondCopy() {}

    /** "reserved" (and released at once) or "refused": whether this copy could reserve {@code cpu}. */
    public static String tryReserve(String dir, int cpu) throws Exception {
        Optional<CpuReservation> reserved =
                CpuReservations.open(Path.of(dir)).tryReserve(CpuSet.of(cpu), 1, "second copy");
        reserved.ifPresent(CpuReservation::close);
        return reserved.isPresent() ? "reserved" : "refused";
    }

    /** Who holds which CPU, as this copy reads the lock files. */
    public static String list(String dir) throws Exception {
        return CpuReservations.open(Path.of(dir)).list().toString();
    }
}
