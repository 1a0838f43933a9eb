package io.perfpin.stats;

/**
 * Faults of a memory-mapped file. A file truncated under its mapping makes every access past its new end
 * fault (SIGBUS), which HotSpot turns into a {@link InternalError} ("a fault occurred in an unsafe memory access
 * operation"). From compiled code, HotSpot may not throw it at the access (JDK 17 does not): it skips the access
 * and throws the error asynchronously, at the thread's next entry into the VM's runtime that checks for such
 * exceptions, which may be anywhere later in the thread's work (a native call, such as {@code fstat}, does not
 * check). Code that catches the fault around its accesses calls {@link #surface} last inside its {@code try}, so
 * that a fault pending from those accesses is thrown there and nowhere else.
 */
public final class MappedFaults {
    /** Not constants, so that no compiler allocates the array inline: the VM's runtime does. */
    private static int outer = 1;

    private static int inner = 0;

    @SuppressWarnings("unused")
    private static volatile Object sink;

    private MappedFaults() {}

    /**
     * Throws the {@link InternalError} of a fault this thread took in a mapped access and has not been thrown
     * yet; does nothing otherwise. A multi-dimensional array whose lengths the compiler cannot know is always
     * allocated by a call into the VM's runtime (the interpreter's, C1's and C2's alike), and returning from that
     * call is such an entry: it costs a few hundred nanoseconds.
     */
    public static void surface() {
        sink = new byte[outer][inner];
    }
}
