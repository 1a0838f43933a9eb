package io.perfpin.apps;

/** Burns CPU in user space for a given time, so the spinning thread's CPU time grows with the wall clock. */
public final class Spinner {
    private static volatile long sink;

    private Spinner() {}

    /** Spins until {@code nanos} of wall time have passed; returns a value that keeps the work alive. */
    public static long spin(long nanos) {
        long end = System.nanoTime() + nanos;
        long x = 0;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 1000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
        }
        sink = x;
        return x;
    }

    public static void main(String[] args) {
        long millis = args.length > 0 ? Long.parseLong(args[0]) : 1000;
        spin(millis * 1_000_000L);
        System.out.println("spun " + millis + " ms");
    }
}
