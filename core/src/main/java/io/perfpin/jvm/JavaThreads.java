package io.perfpin.jvm;

import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which Linux thread each {@code java.lang.Thread} of this JVM runs on, for threads that already run when
 * perfpin arrives (a thread perfpin starts or instruments can just ask the kernel its own TID). Matched by
 * Java id, which a JVM never reuses, through one dump of this JVM.
 */
public final class JavaThreads {
    private JavaThreads() {
    }

    /** Every live platform thread of this JVM, with its TID. */
    public static Map<Thread, Integer> live() {
        return tids(allThreads());
    }

    /**
     * The TIDs of those of {@code threads} that are live platform threads of this JVM; threads not started,
     * ended, or virtual are left out. Takes one thread dump, so map many threads in one call.
     */
    public static Map<Thread, Integer> tids(Collection<Thread> threads) {
        Map<Long, Integer> tidById = new HashMap<>();
        ThreadDump.ofThisJvm().javaThreads().forEach(t -> tidById.put(t.javaId(), t.tid()));
        Map<Thread, Integer> tids = new HashMap<>();
        for (Thread thread : threads) {
            Integer tid = tidById.get(thread.getId());
            // A thread that ended since the dump has given its TID back to the kernel.
            if (tid != null && thread.isAlive()) {
                tids.put(thread, tid);
            }
        }
        return Map.copyOf(tids);
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
