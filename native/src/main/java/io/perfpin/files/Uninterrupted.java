package io.perfpin.files;

/**
 * perfpin's file I/O on a thread of the application's. A {@link java.nio.channels.FileChannel} closes itself when the
 * thread that uses it is interrupted ({@code ClosedByInterruptException}), and applications interrupt their own threads
 * (a task cancelled with {@code Future.cancel(true)}, a pool shut down): a CPU reservation's file would be closed under
 * perfpin, its lock dropped. So an interrupt the thread carries is cleared for the call and set again after it, as the
 * application left it. One that comes during the call still closes the channel: a window of a system call, where before
 * every call of a cancelled task's thread failed. The agent's log has no such window: it writes through its descriptor
 * ({@link OutputFile#createDescriptor}); the reservations' record locks are taken through a channel.
 */
public final class Uninterrupted {
    private Uninterrupted() {}

    /** Clears the calling thread's interrupt; true when it was set, to give to {@link #restore}. */
    public static boolean clear() {
        return Thread.interrupted();
    }

    /** Sets the calling thread's interrupt again where {@link #clear} found it set. */
    public static void restore(boolean wasInterrupted) {
        if (wasInterrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
