package io.perfpin.apps;

/**
 * Sleeps in short naps: each nap blocks the thread, so the kernel switches it out at least once per nap.
 *
 * <p>Usage: {@code java io.perfpin.apps.Sleeper [naps] [millis]}.
 */
public final class Sleeper {
    private Sleeper() {}

    /** Sleeps {@code naps} times for {@code millis} each; returns the naps taken. */
    public static int sleep(int naps, long millis) throws InterruptedException {
        for (int i = 0; i < naps; i++) {
            Thread.sleep(millis);
        }
        return naps;
    }

    public static void main(String[] args) throws InterruptedException {
        int naps = args.length > 0 ? Integer.parseInt(args[0]) : 50;
        long millis = args.length > 1 ? Long.parseLong(args[1]) : 1;
        System.out.println("slept " + sleep(naps, millis) + " times");
    }
}
