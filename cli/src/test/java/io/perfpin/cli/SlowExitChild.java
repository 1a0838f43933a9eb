package io.perfpin.cli;

/**
 * A JVM that naps, then exits slowly: a shutdown hook of its own naps too, so the JVM still runs a while after the
 * agent's hook has closed its stats file, as one whose application has hooks of its own does.
 *
 * <p>Usage: {@code SlowExitChild MAIN_MILLIS HOOK_MILLIS}: the nap before the exit, then the one in the hook.
 */
public final class SlowExitChild {
    private SlowExitChild() {}

    public static void main(String[] args) throws InterruptedException {
        long hook = Long.parseLong(args[1]);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> nap(hook), "slow-exit"));
        Thread.sleep(Long.parseLong(args[0]));
    }

    private static void nap(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
