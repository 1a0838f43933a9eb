package io.perfpin.cpu;

import java.nio.file.Paths;

/**
 * A second process for {@link CpuReservationsTest}: reserves the CPU named by {@code args[1]} in the directory
 * {@code args[0]}, says so on stdout, then holds it until killed or until stdin closes.
 */
public final class ReserveCpuMain {
    private ReserveCpuMain() {}

    public static void main(String[] args) throws Exception {
        Thread.currentThread().setName("holder of " + args[1]);
        // the thread id without the native library: /proc/thread-self links to <pid>/task/<tid>
        int tid = Integer.parseInt(
                Paths.get("/proc/thread-self").toRealPath().getFileName().toString());
        CpuReservations reservations = CpuReservations.open(Paths.get(args[0]));
        CpuReservation reservation = reservations
                .tryReserve(
                        CpuSet.parseList(args[1]), tid, Thread.currentThread().getName())
                .orElse(null);
        System.out.println(
                reservation == null
                        ? "refused"
                        : "reserved " + ProcessHandle.current().pid() + " " + tid);
        System.out.flush();
        while (System.in.read() >= 0) {
            // hold until the test closes our stdin or kills us
        }
    }
}
