package io.perfpin.jvm;

import static io.perfpin.jvm.AttachException.Category.NOT_A_JVM;
import static io.perfpin.jvm.AttachException.Category.PERMISSION_DENIED;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A HotSpot thread dump ({@code jcmd <pid> Thread.print}) read for what perfpin needs: each thread's name,
 * Java id and Linux TID. It is the one place a JVM tells which Java thread runs on which kernel thread,
 * for threads that were running before perfpin arrived.
 *
 * <p>A thread's header line is {@code "name" #id [tid] daemon prio=5 os_prio=0 cpu=... elapsed=...
 * tid=0x... nid=... state}: the {@code [tid]} only from JDK 19, the nid in hex before JDK 19 and in
 * decimal after, {@code #id}, {@code daemon} and {@code prio} only for Java threads. A carrier thread with a
 * virtual thread mounted (JDK 21 and later) has no {@code nid=} nor state, only its {@code [tid]}; its next
 * line says {@code Carrying virtual thread #N}, and the mounted thread's own stack may follow its own. The name is
 * printed raw, so it is read from the first quote to the last quote that a well-formed suffix follows: the text
 * the VM writes after the name has no quote. A name with line breaks spans lines: a header ends at the
 * first line that completes it and is followed by what follows a header (a blank line, an indented line,
 * or the end).
 *
 * <p>A name can still forge a header: its first line completes one when the line after it begins with a
 * space, and after a line break and a blank line it can write a whole entry. The forgery claims a Java id
 * or TID that a listed thread claims too, and every entry sharing a claim is dropped; or numbers that no
 * thread has (a Java id past a long, a TID past an int), and it is dropped; or a TID outside the process,
 * which capture drops; or, at most, a native thread of the process that the dump does not list, under an
 * id no live thread has. So no Java thread is ever given a wrong TID; the forger and its
 * victim go missing, and a name that goes on after its forgery may be shown cut.
 */
public final class ThreadDump {
    /** Long enough for a loaded JVM to reach a safepoint and print thousands of threads. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    /**
     * The longest entry read, its header's lines and those of the name they hold: a name made longer than this (JDK
     * names run to a few dozen characters) is one to mislead, and costs a copy of itself.
     */
    public static final int MAX_ENTRY_CHARS = 64 * 1024;

    private static final String STATE_PREFIX = "   java.lang.Thread.State: ";

    private final List<JavaThreadInfo> javaThreads;
    private final List<VmThreadInfo> vmThreads;
    private final int overlong;

    private ThreadDump(List<JavaThreadInfo> javaThreads, List<VmThreadInfo> vmThreads, int overlong) {
        this.javaThreads = List.copyOf(javaThreads);
        this.vmThreads = List.copyOf(vmThreads);
        this.overlong = overlong;
    }

    /**
     * Threads with a Java id, in dump order: application threads and HotSpot's own JavaThreads (Signal
     * Dispatcher, compiler threads, ...), some of which Java code never sees as {@code Thread} objects.
     */
    public List<JavaThreadInfo> javaThreads() {
        return javaThreads;
    }

    /** The JVM's threads without a Java id (VM Thread, GC threads, VM Periodic Task Thread), in dump order. */
    public List<VmThreadInfo> vmThreads() {
        return vmThreads;
    }

    /** How many entries were left out for being longer than {@link #MAX_ENTRY_CHARS}: threads not named. */
    public int overlong() {
        return overlong;
    }

    /**
     * Dumps this JVM through its own attach listener, which must run already, as it does once a tool attached
     * (the agent arriving by dynamic attach): no signal, and nothing beyond java.base, so it works on a jlinked
     * runtime. The listener serves one request at a time, so this must not run on the listener's own thread
     * (in an {@code agentmain}): it would wait for itself. TIDs are this process's.
     *
     * @throws AttachException when no listener runs, or it does not answer within {@code timeout}
     */
    public static ThreadDump ofThisJvm(Duration timeout) throws AttachException {
        long pid = ProcessHandle.current().pid();
        long from = System.nanoTime();
        return named(pid, HotSpotAttach.jcmdIfListening(pid, "Thread.print", timeout), from, timeout);
    }

    /** {@link #of(long, Duration)} with {@link #DEFAULT_TIMEOUT}. */
    public static ThreadDump of(long pid) throws AttachException {
        return of(pid, DEFAULT_TIMEOUT);
    }

    /**
     * Dumps JVM {@code pid} through HotSpot's attach mechanism, starting its attach listener if need be. TIDs
     * are translated into our pid namespace (a JVM in a container numbers its threads in its own), and
     * entries whose TID is not a thread of {@code pid} are dropped.
     *
     * @throws AttachException with the category the CLI maps to an exit code
     */
    public static ThreadDump of(long pid, Duration timeout) throws AttachException {
        long from = System.nanoTime();
        return named(pid, HotSpotAttach.jcmd(pid, "Thread.print", timeout), from, timeout);
    }

    /**
     * As {@link #of(long)}, through an attach listener that already runs: no trigger file, no signal, so nothing in
     * the JVM changes; what a tool may ask before it knows it will count the JVM at all.
     *
     * @throws AttachException {@code NOT_A_JVM} when no listener runs
     */
    public static ThreadDump ofIfListening(long pid) throws AttachException {
        long from = System.nanoTime();
        return named(pid, HotSpotAttach.jcmdIfListening(pid, "Thread.print", DEFAULT_TIMEOUT), from, DEFAULT_TIMEOUT);
    }

    /** The dump {@code text} of {@code pid}, read within what is left of {@code timeout} from {@code from}. */
    private static ThreadDump named(long pid, String text, long from, Duration timeout) throws AttachException {
        try {
            return parse(text, from, timeout.toNanos()).ownedBy(pid);
        } catch (TimeoutException e) {
            throw new AttachException(NOT_A_JVM, "process " + pid + ": " + e.getMessage());
        } catch (NoSuchFileException e) {
            throw HotSpotAttach.exitedMeanwhile("process " + pid);
        } catch (IOException e) {
            throw new AttachException(
                    PERMISSION_DENIED, "cannot list the threads of process " + pid + ": " + e.getMessage());
        }
    }

    /** Reads the threads out of a dump's text; the TIDs are those in the text. */
    public static ThreadDump parse(String text) {
        try {
            return parse(text, System.nanoTime(), Long.MAX_VALUE);
        } catch (TimeoutException e) {
            throw new IllegalStateException("no deadline, yet past it", e);
        }
    }

    /**
     * As {@link #parse(String)}, given up when it takes longer than {@code nanos} from {@code from}
     * ({@link System#nanoTime}).
     *
     * <p>Linear in the text's length: an entry ends at the first line below its first that ends a header
     * ({@link ThreadHeader#ends}), which does not depend on where the entry began, so each line is asked once, by a
     * search that only moves down; and an entry's first line is asked once more, as its only line. An entry longer
     * than {@link #MAX_ENTRY_CHARS} is left out whole, its name never copied.
     */
    static ThreadDump parse(String text, long from, long nanos) throws TimeoutException {
        Lines lines = new Lines(text);
        List<JavaThreadInfo> java = new ArrayList<>();
        List<VmThreadInfo> vm = new ArrayList<>();
        int overlong = 0;
        int i = 0;
        while (i < lines.count()) {
            if ((i & 0xFFF) == 0 && System.nanoTime() - from > nanos) {
                throw new TimeoutException("its thread dump of " + text.length() + " characters was not read within "
                        + TimeUnit.NANOSECONDS.toMillis(nanos) + " ms");
            }
            int start = lines.start(i);
            if (!text.startsWith("\"", start)) {
                i++;
                continue;
            }
            int last = ThreadHeader.ends(text, start + 1, start, lines.end(i)) && lines.endsHeader(i + 1)
                    ? i
                    : lines.nextEnd(i + 1);
            if (last < 0) {
                i++; // no line ends it: a line of a name, its entry read already
                continue;
            }
            i = last + 1;
            if (lines.end(last) - start > MAX_ENTRY_CHARS) {
                overlong++;
                continue;
            }
            ThreadHeader header = ThreadHeader.parse(text, start, lines.start(last), lines.end(last));
            long tid = tid(header);
            long javaId = header.javaId() == null ? 0 : number(header.javaId(), 10, Long.MAX_VALUE);
            if (tid < 0 || javaId < 0) {
                continue; // no TID to map it by, or numbers no thread has: a name's forgery
            }
            if (header.javaId() == null) {
                vm.add(new VmThreadInfo(header.name(), (int) tid));
            } else {
                java.add(new JavaThreadInfo(
                        header.name(), javaId, (int) tid, header.daemon(), state(text, lines, last + 1)));
            }
        }
        return unambiguous(java, vm, overlong);
    }

    /** The lines of a dump's text, by where each begins, and which of them end a header begun above them. */
    private static final class Lines {
        private final String text;
        /** Where each line begins; one more, past the text's end. */
        private final int[] starts;

        private final int count;
        /** The line below a header's first that {@link #nextEnd} found last, or -1 when none is left. */
        private int nextEnd = -2;
        /** The lines before this one have been asked by {@link #nextEnd}. */
        private int searched;

        Lines(String text) {
            this.text = text;
            int n = 1;
            for (int at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) {
                n++;
            }
            starts = new int[n + 1];
            int line = 1;
            for (int at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) {
                starts[line++] = at + 1;
            }
            starts[n] = text.length() + 1;
            count = n;
        }

        int count() {
            return count;
        }

        int start(int line) {
            return starts[line];
        }

        /** Where it ends, before its line feed. */
        int end(int line) {
            return starts[line + 1] - 1;
        }

        /** Whether what follows a header comes at {@code line}: a blank line, an indented line, or the end. */
        boolean endsHeader(int line) {
            return line == count || end(line) == start(line) || " \t".indexOf(text.charAt(start(line))) >= 0;
        }

        /**
         * The first line from {@code from} on that ends a header begun above it, and is followed by what follows a
         * header; -1 when none does. {@code from} never goes back between calls, so each line is asked once.
         */
        int nextEnd(int from) {
            if (nextEnd >= from || nextEnd == -1) {
                return nextEnd;
            }
            for (int line = Math.max(from, searched); line < count; line++) {
                if (ThreadHeader.ends(text, start(line), start(line), end(line)) && endsHeader(line + 1)) {
                    nextEnd = line;
                    searched = line + 1;
                    return line;
                }
            }
            nextEnd = -1;
            return -1;
        }
    }

    /** The header's TID: its {@code [TID]}, else its nid; -1 when it has neither, or one past any TID. */
    private static long tid(ThreadHeader header) {
        String nid = header.nid();
        if (header.tid() != null) {
            return number(header.tid(), 10, Integer.MAX_VALUE);
        }
        if (nid == null) {
            return -1;
        }
        return nid.startsWith("0x")
                ? number(nid.substring(2), 16, Integer.MAX_VALUE)
                : number(nid, 10, Integer.MAX_VALUE);
    }

    /** The number {@code digits} write in {@code radix}, or -1 past {@code most}: a name can write any digits. */
    private static long number(String digits, int radix, long most) {
        try {
            long value = Long.parseLong(digits, radix);
            return value <= most ? value : -1;
        } catch (NumberFormatException e) {
            return -1; // past a long
        }
    }

    private static Thread.State state(String text, Lines lines, int next) {
        if (next == lines.count() || !text.startsWith(STATE_PREFIX, lines.start(next))) {
            return null;
        }
        String rest = text.substring(lines.start(next) + STATE_PREFIX.length(), lines.end(next));
        int space = rest.indexOf(' ');
        String name = space < 0 ? rest : rest.substring(0, space);
        for (Thread.State state : Thread.State.values()) {
            if (state.name().equals(name)) {
                return state;
            }
        }
        return null;
    }

    /**
     * Drops every entry whose Java id or TID another entry claims too: one is forged, and which is unknowable. Loops,
     * not lambdas: {@code perfpin stat} parses a dump as it starts, where linking a lambda costs more than its loop.
     */
    private static ThreadDump unambiguous(List<JavaThreadInfo> java, List<VmThreadInfo> vm, int overlong) {
        Map<Integer, Integer> tidClaims = new HashMap<>();
        Map<Long, Integer> idClaims = new HashMap<>();
        for (JavaThreadInfo t : java) {
            claim(tidClaims, t.tid());
            claim(idClaims, t.javaId());
        }
        for (VmThreadInfo t : vm) {
            claim(tidClaims, t.tid());
        }
        List<JavaThreadInfo> javaKept = new ArrayList<>();
        for (JavaThreadInfo t : java) {
            if (tidClaims.get(t.tid()) == 1 && idClaims.get(t.javaId()) == 1) {
                javaKept.add(t);
            }
        }
        List<VmThreadInfo> vmKept = new ArrayList<>();
        for (VmThreadInfo t : vm) {
            if (tidClaims.get(t.tid()) == 1) {
                vmKept.add(t);
            }
        }
        return new ThreadDump(javaKept, vmKept, overlong);
    }

    private static <K> void claim(Map<K, Integer> claims, K key) {
        Integer before = claims.get(key);
        claims.put(key, before == null ? 1 : before + 1);
    }

    /** This dump with its TIDs in our pid namespace, keeping only threads that {@code pid} has now. */
    private ThreadDump ownedBy(long pid) throws IOException {
        Map<Integer, Integer> tids = ProcTasks.byInnerTid(pid);
        List<JavaThreadInfo> java = new ArrayList<>();
        for (JavaThreadInfo t : javaThreads) {
            Integer tid = tids.get(t.tid());
            if (tid != null) {
                java.add(new JavaThreadInfo(t.name(), t.javaId(), tid, t.daemon(), t.state()));
            }
        }
        List<VmThreadInfo> vm = new ArrayList<>();
        for (VmThreadInfo t : vmThreads) {
            Integer tid = tids.get(t.tid());
            if (tid != null) {
                vm.add(new VmThreadInfo(t.name(), tid));
            }
        }
        return new ThreadDump(java, vm, overlong);
    }
}
