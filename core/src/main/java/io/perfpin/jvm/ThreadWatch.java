package io.perfpin.jvm;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Another JVM's Java threads as they start and end, seen from outside, as {@code perf stat -p} follows a process's
 * threads. Each {@link #look} lists {@code /proc/<pid>/task}, which costs the JVM nothing; only when that lists
 * TIDs not seen before does it take a thread dump to name them, which stops the JVM at a safepoint: at most one
 * dump per look, none while no thread starts.
 *
 * <p>A new TID that the dump does not name is named once more, at the next look: a thread the JVM has created
 * but not yet listed as a Java thread becomes one within microseconds. After that it is left alone, since a
 * thread of the JVM's own (GC, compiler) or of native code is never named, and would cost a dump per look. A
 * thread that starts and ends between two looks is not seen at all.
 */
public final class ThreadWatch {
    private final long pid;
    /** TIDs seen and settled: named, or given up on. */
    private final Set<Integer> known = new HashSet<>();
    /** TIDs a dump did not name once, named again at the next look. */
    private Set<Integer> unnamed = new HashSet<>();
    /** What the last look listed, to tell which threads ended. */
    private Set<Integer> listed;
    /** A dump left out a thread whose entry is too long to read ({@link ThreadDump#overlong}). */
    private boolean leftOutLong;

    private final List<JavaThreadInfo> initial;

    private ThreadWatch(long pid, Set<Integer> listed, List<JavaThreadInfo> initial) {
        this.pid = pid;
        this.listed = listed;
        this.initial = initial;
        known.addAll(listed);
    }

    /**
     * The threads {@code pid} runs now, named by one thread dump.
     *
     * @throws AttachException with the category the CLI maps to an exit code (no such process, not a JVM, ...)
     */
    public static ThreadWatch start(long pid) throws AttachException {
        return start(pid, ThreadDump::of);
    }

    /**
     * As {@link #start}, named through an attach listener that already runs ({@link ThreadDump#ofIfListening}).
     *
     * @throws AttachException {@code NOT_A_JVM} when no listener runs
     */
    public static ThreadWatch startIfListening(long pid) throws AttachException {
        return start(pid, ThreadDump::ofIfListening);
    }

    private interface Dump {
        ThreadDump of(long pid) throws AttachException;
    }

    private static ThreadWatch start(long pid, Dump dumper) throws AttachException {
        // Listed before the dump: a thread started between the two is named by the dump, and so not missed.
        Set<Integer> before;
        try {
            before = ProcTasks.of(pid);
        } catch (IOException e) {
            before = new HashSet<>(); // no such process, or not ours: the dump says which
        }
        ThreadDump dump = dumper.of(pid);
        Set<Integer> listed = new HashSet<>(before);
        dump.javaThreads().forEach(t -> listed.add(t.tid()));
        dump.vmThreads().forEach(t -> listed.add(t.tid()));
        ThreadWatch watch = new ThreadWatch(pid, listed, dump.javaThreads());
        watch.leftOutLong = dump.overlong() > 0;
        return watch;
    }

    /**
     * Whether a dump left out a thread whose entry is longer than {@link ThreadDump#MAX_ENTRY_CHARS}: a name made that
     * long, whose thread is neither named nor counted.
     */
    public boolean leftOutLong() {
        return leftOutLong;
    }

    /** The Java threads of the first dump, in dump order. */
    public List<JavaThreadInfo> initial() {
        return initial;
    }

    /**
     * What changed since the last look: the Java threads that started, named, and the TIDs that ended (of all the
     * process's threads: a caller keeps those it follows). Once the process is gone, every thread has ended.
     *
     * @throws AttachException when new TIDs appeared and the dump that would name them failed; they are then
     *                         given up on, and the next look goes on from here
     */
    public Changes look() throws AttachException {
        Set<Integer> now;
        try {
            now = ProcTasks.of(pid);
        } catch (NoSuchFileException gone) {
            now = Set.of();
        } catch (IOException e) {
            throw new AttachException(
                    AttachException.Category.PERMISSION_DENIED,
                    "cannot list the threads of" + " process " + pid + ": " + e.getMessage());
        }
        Set<Integer> ended = new HashSet<>(listed);
        ended.removeAll(now);
        known.removeAll(ended); // a TID the kernel hands out again is another thread
        listed = now;
        Set<Integer> retried = new HashSet<>(unnamed);
        retried.retainAll(now);
        Set<Integer> fresh = new HashSet<>(now);
        fresh.removeAll(known);
        fresh.removeAll(retried);
        unnamed = new HashSet<>();
        List<JavaThreadInfo> started = new ArrayList<>();
        if (fresh.isEmpty() && retried.isEmpty()) {
            return new Changes(started, ended, now.isEmpty());
        }
        known.addAll(retried);
        ThreadDump dump;
        try {
            dump = ThreadDump.of(pid);
            leftOutLong |= dump.overlong() > 0;
        } catch (AttachException e) {
            known.addAll(fresh);
            throw e;
        }
        Set<Integer> named = new HashSet<>();
        for (JavaThreadInfo t : dump.javaThreads()) {
            if ((fresh.contains(t.tid()) || retried.contains(t.tid())) && named.add(t.tid())) {
                started.add(t);
            }
        }
        dump.vmThreads().forEach(t -> named.add(t.tid()));
        for (int tid : fresh) {
            (named.contains(tid) ? known : unnamed).add(tid);
        }
        return new Changes(started, ended, now.isEmpty());
    }

    /**
     * @param started the Java threads that started since the last look, in dump order
     * @param ended   the TIDs that ended since the last look
     * @param gone    whether the process has no thread left: it exited
     */
    public record Changes(List<JavaThreadInfo> started, Set<Integer> ended, boolean gone) {}
}
