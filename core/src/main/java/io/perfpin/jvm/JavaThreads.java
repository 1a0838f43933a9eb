package io.perfpin.jvm;

import static io.perfpin.jvm.AttachException.Category.NOT_A_JVM;

import io.perfpin.nativeio.Errno;
import io.perfpin.nativeio.JavaThreadIds;
import io.perfpin.nativeio.Syscalls;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which Linux thread each {@code java.lang.Thread} of this JVM runs on, for threads that already run when
 * perfpin arrives (a thread perfpin starts or instruments can just ask the kernel its own TID).
 *
 * <p>perfpin's C library reads each TID from the JVM's own thread structures ({@link JavaThreadIds}). Without
 * it, this JVM's thread dump maps threads by Java id, which a JVM never reuses, through its own attach
 * listener ({@link ThreadDump#ofThisJvm}), which must run, and not on the listener's thread. Only before JDK 25:
 * from JDK 25 on, the listener writes the dump from a safepoint (JDK-8319055), and a JVM reading its own dump
 * would stop every one of its threads for good.
 */
public final class JavaThreads {
    /** The first JDK whose attach listener streams its output from a safepoint. */
    private static final int STREAMING_ATTACH = 25;
    /** Long enough for a loaded JVM to print thousands of threads, after the listener finished its request. */
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private JavaThreads() {}

    /**
     * Every live platform thread of this JVM, with its TID. Keyed by identity, as every map of threads here: an
     * application's Thread subclass may define equals and hashCode by value, which would take two threads for one.
     */
    public static Map<Thread, Integer> live(Syscalls syscalls) throws AttachException {
        return tids(syscalls, allThreads());
    }

    /**
     * As {@link #live}, where perfpin's C library reads them from the JVM's own structures; null where only the JVM's
     * thread dump could tell, which its attach listener writes: a caller on that listener (an agent's agentmain) would
     * wait for itself.
     */
    public static Map<Thread, Integer> liveWithoutDump(Syscalls syscalls) throws AttachException {
        return tids(syscalls, allThreads(), false);
    }

    /**
     * The TIDs of those of {@code threads} that are live platform threads of this JVM; threads not started,
     * ended, or virtual (which have no kernel thread of their own) are left out.
     */
    public static Map<Thread, Integer> tids(Syscalls syscalls, Collection<Thread> threads) throws AttachException {
        return tids(syscalls, threads, true);
    }

    private static Map<Thread, Integer> tids(Syscalls syscalls, Collection<Thread> threads, boolean dump)
            throws AttachException {
        Thread[] array = threads.toArray(new Thread[0]);
        int[] tids = new int[array.length];
        int found = JavaThreadIds.of(syscalls, array, tids);
        if (found == -Errno.ENOSYS) {
            return dump ? fromOwnDump(threads) : null;
        }
        if (found < 0) {
            throw new AttachException(NOT_A_JVM, "cannot read the TIDs of this JVM's threads: " + Errno.name(-found));
        }
        Set<Integer> tasks;
        try {
            tasks = ProcTasks.of(ProcessHandle.current().pid());
        } catch (java.io.IOException e) {
            throw new AttachException(NOT_A_JVM, "cannot list this JVM's threads in /proc: " + e.getMessage());
        }
        Map<Thread, Integer> byThread = new IdentityHashMap<>();
        for (int i = 0; i < array.length; i++) {
            // A TID is this process's task, or the thread ended meanwhile and is left out.
            if (tids[i] > 0 && tasks.contains(tids[i])) {
                byThread.put(array[i], tids[i]);
            }
        }
        return Collections.unmodifiableMap(byThread);
    }

    private static Map<Thread, Integer> fromOwnDump(Collection<Thread> threads) throws AttachException {
        if (Runtime.version().feature() >= STREAMING_ATTACH) {
            throw new AttachException(
                    NOT_A_JVM,
                    "on JDK " + STREAMING_ATTACH + " and later, perfpin needs its C library (the JNI backend, and"
                            + " process_vm_readv, which a seccomp filter may refuse) to find the TIDs of threads that"
                            + " already run");
        }
        Map<Long, Integer> tidById = new HashMap<>();
        ThreadDump.ofThisJvm(TIMEOUT).javaThreads().forEach(t -> tidById.put(t.javaId(), t.tid()));
        Map<Thread, Integer> tids = new IdentityHashMap<>();
        for (Thread thread : threads) {
            Integer tid = tidById.get(thread.getId());
            // A thread that ended since the dump has given its TID back to the kernel.
            if (tid != null && thread.isAlive()) {
                tids.put(thread, tid);
            }
        }
        return Collections.unmodifiableMap(tids);
    }

    /** Enumerates the root thread group: unlike Thread.getAllStackTraces, it stops no thread and walks no stack. */
    private static List<Thread> allThreads() {
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        Thread[] threads = new Thread[root.activeCount() + 16];
        int count;
        while ((count = root.enumerate(threads, true)) == threads.length) {
            threads = new Thread[threads.length * 2];
        }
        return Arrays.asList(threads).subList(0, count);
    }
}
