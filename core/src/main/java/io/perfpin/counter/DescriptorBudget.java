package io.perfpin.counter;

import io.perfpin.event.EventSpec;
import io.perfpin.jvm.ProcText;
import io.perfpin.nativeio.Errno;
import io.perfpin.options.DescriptorShare;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * The file descriptors perfpin may hold in the process it counts, and how many it holds. Every descriptor
 * perfpin keeps open takes one before it is opened and gives it back when it is closed, so what the
 * application had free stays free but for perfpin's share: counters that would go beyond it are not opened,
 * and their thread is reported not counted, with {@link #reason()}. Taking and giving back are an atomic
 * add, no system call. The count is a long in native memory, so that perfpin's C library, which opens the counters
 * of threads as they start ({@link io.perfpin.nativeio.NativeEnrolment}), takes from the same budget.
 */
public final class DescriptorBudget {
    /**
     * Begins the reason of every event of a thread that holds no descriptor: the reason is the thread's, not
     * the event's, and a report says it once for all its events.
     */
    public static final String THREAD_NOT_COUNTED = "thread not counted: ";

    private static final String LIMITS = "/proc/self/limits";
    /** Its line, never the first (a header is): found in place. */
    private static final String MAX_OPEN_FILES = "\nMax open files";

    private static final Path OPEN = Paths.get("/proc/self/fd");

    private final long budget;
    private final String reason;
    /** A long, atomically changed by Java through {@link #HELD} and by C alike. */
    private static final VarHandle HELD = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private final ByteBuffer held =
            ByteBuffer.allocateDirect(2 * Long.BYTES).alignedSlice(Long.BYTES).order(ByteOrder.nativeOrder());

    private DescriptorBudget(long budget, String reason) {
        this.budget = budget;
        this.reason = reason;
    }

    /** No bound but the process's own limit, for a tool that counts from outside, in a process of its own. */
    public static DescriptorBudget unbounded() {
        return new DescriptorBudget(Long.MAX_VALUE, "");
    }

    /**
     * {@code share} of the descriptors this process has free now, as the agent's option {@code fds=} sets it:
     * see {@link #forThisProcess(DescriptorShare, String, String)}.
     */
    public static DescriptorBudget forThisProcess(DescriptorShare share) throws IOException {
        return forThisProcess(share, "fds=", "the agent option fds=");
    }

    /**
     * {@code share} of the descriptors this process has free now: its limit (RLIMIT_NOFILE, read from
     * /proc/self/limits, which needs no module beyond java.base) less those it has open, counted once.
     *
     * @param option how the share is written, for the reason: {@code fds=}, {@code --fds=}
     * @param setBy  what sets the share, for the reason: {@code the agent option fds=}, {@code --fds}
     * @throws IOException when /proc cannot say
     */
    public static DescriptorBudget forThisProcess(DescriptorShare share, String option, String setBy)
            throws IOException {
        long free = openFileLimit() - openDescriptors();
        long budget = share.of(free);
        return new DescriptorBudget(
                budget,
                "perfpin's share of this process's file descriptors (" + budget
                        + ", " + option + share + " of the " + Math.max(free, 0)
                        + " free when it started) is in use, one per"
                        + " event per counted thread; " + setBy + " sets the share");
    }

    /** The soft limit: the one open() meets. */
    static long openFileLimit() throws IOException {
        String soft = ProcText.word(ProcText.read(LIMITS), MAX_OPEN_FILES);
        if (soft == null) {
            throw new IOException(LIMITS + " has no line 'Max open files'");
        }
        return soft.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(soft);
    }

    /** The directory's own descriptor, open while it is listed, is counted too: one more than at rest. */
    private static long openDescriptors() throws IOException {
        long open = 0;
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(OPEN)) {
            for (Path ignored : fds) {
                open++;
            }
        }
        return open;
    }

    /** Takes {@code descriptors} when they fit in the budget, all or none; returns whether it took them. */
    public boolean take(int descriptors) {
        while (true) {
            long now = (long) HELD.getVolatile(held, 0);
            if (now + descriptors > budget) {
                return false;
            }
            if (HELD.compareAndSet(held, 0, now, now + (long) descriptors)) {
                return true;
            }
        }
    }

    /**
     * Gives back descriptors taken and now closed, or taken and never opened. None is no write: a thread C enrolled
     * gives back none here (C does), and the agent closes thousands of them.
     */
    public void giveBack(int descriptors) {
        if (descriptors != 0) {
            HELD.getAndAdd(held, 0, (long) -descriptors);
        }
    }

    /** How many descriptors perfpin may hold. */
    public long budget() {
        return budget;
    }

    /** How many it holds now. */
    public long held() {
        return (long) HELD.getVolatile(held, 0);
    }

    /** The count of descriptors held, 8 aligned bytes for C to change atomically as Java does. */
    public ByteBuffer sharedCount() {
        return held;
    }

    /** Why a thread beyond the budget is not counted: one line, the same for every thread. */
    public String reason() {
        return reason;
    }

    /** Whether an event's reason is its thread's: it was not counted at all. */
    public static boolean isThreadNotCounted(String reason) {
        return reason.startsWith(THREAD_NOT_COUNTED);
    }

    /** The kernel's way of saying what the budget says: the process, or the whole system, is out of descriptors. */
    static boolean isShortage(int errno) {
        return errno == Errno.EMFILE || errno == Errno.ENFILE;
    }

    /**
     * The failures of a request none of whose events could have a descriptor: each event fails with
     * {@code errno} and {@code why}, as {@link #THREAD_NOT_COUNTED} says, but those the kernel refused anyway,
     * which keep their own reason.
     */
    static List<EventFailure> shortage(
            List<EventSpec> events, List<EventFailure> refusedAnyway, int errno, String why) {
        EventFailure[] byIndex = new EventFailure[events.size()];
        for (EventFailure failure : refusedAnyway) {
            byIndex[failure.index()] = failure;
        }
        List<EventFailure> failures = new ArrayList<>();
        for (int i = 0; i < byIndex.length; i++) {
            failures.add(
                    byIndex[i] != null
                            ? byIndex[i]
                            : new EventFailure(events.get(i), i, errno, THREAD_NOT_COUNTED + why));
        }
        return failures;
    }
}
