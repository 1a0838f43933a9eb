package io.perfpin.cpu;

import io.perfpin.jvm.LastCpu;
import io.perfpin.jvm.ProcessChangedException;
import io.perfpin.jvm.ProcessIdentity;
import io.perfpin.jvm.ThisProcess;
import io.perfpin.jvm.ThreadStartTime;
import io.perfpin.nativeio.Errno;
import io.perfpin.nativeio.NativeException;
import io.perfpin.nativeio.PinWatchdog;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.report.TerminalText;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The one place perfpin pins threads and gives them their CPUs back: for the agent in its own JVM, for the CLI in
 * the JVM it counts and for the JMH profiler in the benchmark's. Each pin reads the process's CPU topology once,
 * saves the thread's affinity, places it ({@link Placement#assign}) and sets it; {@link #restore} or {@link #close}
 * gives it its affinity back and frees the CPUs reserved for it, so perfpin leaves a process as it found it.
 *
 * <p>A thread gets its CPUs back only while it is still the thread pinned: its {@link Thread} lives, or it has the
 * same start time as when it was pinned (the kernel reuses TIDs). In another process ({@link #ofProcess}) also
 * only while the process is still the one checked ({@link ProcessIdentity}: an exec keeps TIDs, start times and
 * masks, and a setuid program runs as root), and a {@link PinWatchdog}, told before each pin, gives the threads
 * their CPUs back if perfpin is killed first. And only while it still has the CPUs perfpin gave it: whoever pinned
 * it since then wins. Pins and restores may come from any thread. What it cannot give back is said through the
 * caller's voice (the agent's notices, stat's stderr, the profiler's notes); a pin it cannot have is thrown, for the
 * caller to word in its own terms.
 */
public final class ThreadPins implements AutoCloseable {
    /** A woken thread moves within microseconds; a millisecond keeps the wait from spinning on a CPU of two. */
    private static final long MOVE_POLL_NANOS = Duration.ofMillis(1).toNanos();
    /** How much of a thread's name a placement's line keeps: a line names every thread placed. */
    private static final int NAME_COLUMNS = 32;

    private final Syscalls syscalls;
    private final ThreadAffinity affinity;
    private final int pid;
    /** Null for this JVM's own process, which cannot change under perfpin. */
    private final ProcessIdentity process;
    /** What the watchdog checks of the process before it restores; null where no watchdog is wanted. */
    private final PinWatchdog.Program program;

    private final Consumer<String> say;
    private final Map<Integer, Pin> pins = new ConcurrentHashMap<>();
    /**
     * Held shared by each pin under way, and alone by {@link #close}: a pin that raced the close would land after it
     * gave every pin back, and stay. After the close, {@link #closed} refuses every pin.
     */
    private final ReentrantReadWriteLock closing = new ReentrantReadWriteLock();
    /** Set under {@link #closing}'s write lock, read under its read lock. */
    private boolean closed;
    /**
     * On a thread of this JVM that perfpin pinned on the thread itself, the CPUs it gave it, which each thread made
     * there inherits ({@link InheritableThreadLocal}, copied as the child is constructed): how a new thread tells
     * perfpin's pin of its creator from a pin the application set itself (taskset, JNI, an affinity library) to the
     * same CPUs, which it must keep. Taken off as the pin is given back there, or as a child is given the process's
     * CPUs. It holds their list text, a JDK class: a value of perfpin's own would keep the agent's class loader alive
     * in every thread that carries it after a detach.
     */
    private final InheritableThreadLocal<String> creatorPinned = new InheritableThreadLocal<>();
    /**
     * The TIDs of threads of this JVM pinned from another thread (those already running at an attach), which carry no
     * such mark: while one is pinned, a new thread with its CPUs is taken for its child. Pruned as each is given back.
     */
    private final Set<Integer> pinnedElsewhere = ConcurrentHashMap.newKeySet();
    /** Whether a thread of this JVM was ever pinned: until then, a thread's start costs nothing here. */
    private volatile boolean pinnedHere;
    /** In this JVM, the affinity of the process when pinning began: what an unpinned thread runs with. */
    private final CpuSet processCpus;
    /** Its text, worked out once: most threads run with it. */
    private final String processCpusText;

    private volatile CpuTopology topology;
    /** Held while the topology is read: a pin that comes meanwhile waits for that read rather than making another. */
    private final Object readingTopology = new Object();

    private CpuReservations reservations;
    private PinWatchdog watchdog;
    /** Set by {@link #close}: the watchdog is ended, and none is started after it. */
    private boolean watchdogClosed;

    private volatile boolean unwatched;
    private volatile boolean leftAlone;

    /**
     * A thread perfpin pinned.
     *
     * @param thread    the Java thread, in this JVM, whose life vouches for its TID; null where the start time does
     * @param startTime the thread's start time, checked against TID reuse; -1 where its {@code thread} vouches
     * @param before    its affinity before the pin, given back when perfpin lets go
     * @param cpus      the affinity perfpin gave it, as the kernel reported it back (within its cgroup's cpuset)
     */
    public record Pin(
            int tid, String name, Thread thread, long startTime, CpuSet before, CpuSet cpus, CpuAssignment assignment) {
        /** The CPUs its placement chose, as placed, whatever the kernel kept of them. */
        public CpuSet placed() {
            return assignment.cpus();
        }
    }

    private ThreadPins(Syscalls syscalls, int pid, ProcessIdentity process, boolean watched, Consumer<String> say) {
        this.syscalls = syscalls;
        this.affinity = new ThreadAffinity(syscalls);
        this.pid = pid;
        this.process = process;
        this.program = watched
                ? new PinWatchdog.Program(process.exeDevice(), process.exeInode(), process.credentials())
                : null;
        this.say = say;
        this.processCpus = process == null ? affinity.get(0) : null;
        this.processCpusText = processCpus == null ? null : processCpus.toString();
    }

    /**
     * Pins threads of this JVM. Its affinity now, the calling thread's, is what an unpinned thread runs with.
     *
     * @param say where what cannot be done is said (a thread that cannot have its CPUs back)
     */
    public static ThreadPins ofThisProcess(Syscalls syscalls, Consumer<String> say) {
        return new ThreadPins(syscalls, (int) ThisProcess.pid(), null, false, say);
    }

    /**
     * Pins threads of {@code process}, and of no other that its pid may name later, within the CPUs it may use
     * (perfpin's own may be others); a watchdog gives them back if perfpin is killed.
     */
    public static ThreadPins ofProcess(Syscalls syscalls, ProcessIdentity process, Consumer<String> say) {
        return new ThreadPins(syscalls, (int) process.pid(), process, true, say);
    }

    /**
     * Pins thread {@code tid}, named {@code name}, as {@code placement} says, checking its start time against TID
     * reuse.
     *
     * @throws IllegalArgumentException when the placement names CPUs the process may not use
     * @throws IllegalStateException    when no isolated CPU or whole core is free, or after {@link #close}
     * @throws NativeException          with ESRCH when the thread has ended
     * @throws ProcessChangedException  when the pid no longer names the process checked: nothing was done to it
     * @throws IOException              when the thread ended as it was pinned, and the pin was undone
     */
    public Pin pin(int tid, String name, Placement placement) throws IOException {
        long startTime = ThreadStartTime.of(pid, tid)
                .orElseThrow(() -> new NativeException("reading /proc/" + pid + "/task/" + tid + "/stat", Errno.ESRCH));
        return pin(tid, startTime, name, placement);
    }

    /** As {@link #pin(int, String, Placement)}, for the thread of {@code tid} that started at {@code startTime}. */
    public Pin pin(int tid, long startTime, String name, Placement placement) throws IOException {
        return pin(tid, name, null, startTime, placement);
    }

    /**
     * As {@link #pin(int, String, Placement)}, for {@code thread} of this JVM: while it lives its TID is its own,
     * so no start time is read from /proc, which would cost the application's thread a file descriptor and time.
     */
    public Pin pin(Thread thread, int tid, String name, Placement placement) throws IOException {
        return pin(tid, name, thread, -1, placement);
    }

    private Pin pin(int tid, String name, Thread thread, long startTime, Placement placement) throws IOException {
        closing.readLock().lock();
        try {
            if (closed) {
                throw new IllegalStateException("perfpin no longer pins: it gave every pin back as it stopped");
            }
            return pinOpen(tid, name, thread, startTime, placement);
        } finally {
            closing.readLock().unlock();
        }
    }

    private Pin pinOpen(int tid, String name, Thread thread, long startTime, Placement placement) throws IOException {
        CpuTopology placedOn = topology();
        if (process != null) {
            // The thread's name came from a thread dump that the process answered itself, whenever it chose to.
            process.check();
        }
        CpuSet before = affinity.get(tid);
        CpuAssignment assignment = placement.assign(placedOn, reservations(), tid, name);
        Pin pin;
        boolean set = false;
        try {
            // Told first, so that no moment exists in which the thread is pinned and the watchdog does not know.
            watch(tid, startTime, before, assignment.cpus());
            affinity.set(tid, assignment.cpus());
            set = true;
            pin = new Pin(tid, name, thread, startTime, before, assignment.cpus(), assignment);
            undoIfChanged(pin);
            if (process != null) {
                // The kernel keeps only the CPUs of the set that the thread's cpuset allows.
                CpuSet cpus = affinity.get(tid);
                if (!cpus.equals(assignment.cpus())) {
                    watch(tid, startTime, before, cpus);
                    pin = new Pin(tid, name, thread, startTime, before, cpus, assignment);
                }
            }
        } catch (IOException | RuntimeException | Error e) {
            // a pin not kept is not left in place either: nothing would give it back
            try {
                if (set && !(e instanceof IOException)) { // undoIfChanged's comes with the pin undone
                    affinity.set(tid, before);
                }
            } catch (RuntimeException | Error again) {
                e.addSuppressed(again);
            } finally {
                release(tid);
                assignment.close();
            }
            throw e;
        }
        pins.put(tid, pin);
        if (process == null) {
            if (thread != null && thread == Thread.currentThread()) {
                creatorPinned.set(pin.cpus().toString());
            } else {
                pinnedElsewhere.add(tid);
            }
            pinnedHere = true;
        }
        return pin;
    }

    /**
     * Between the checks before it and sched_setaffinity, the thread may have ended and its TID gone to another
     * thread, or the process may have exec'd: then the pin went to what was not checked. It is undone at once,
     * with the mask read before (a new thread's own when the TID changed hands before it was read, and
     * otherwise the mask its creator in the same process had, most likely the same), and said.
     */
    private void undoIfChanged(Pin pin) throws IOException {
        IOException changed = null;
        if (!isStill(pin)) {
            changed = new IOException("thread '" + pin.name() + "' (tid " + pin.tid() + ") ended as perfpin pinned"
                    + " it, and its tid may be another thread's now");
        } else if (process != null) {
            try {
                process.check();
            } catch (ProcessChangedException e) {
                changed = e;
            }
        }
        if (changed == null) {
            return;
        }
        try {
            affinity.set(pin.tid(), pin.before());
            say.accept("undid the pin of tid " + pin.tid() + " at once, back to "
                    + pin.before().inWords() + ": " + changed.getMessage());
        } catch (NativeException e) {
            if (e.errno() != Errno.ESRCH) {
                throw e;
            }
        }
        throw changed;
    }

    /** Whether the thread of {@code pin} is still the one pinned (an ended one is not). */
    private boolean isStill(Pin pin) {
        return pin.thread() != null
                ? pin.thread().isAlive()
                : ThreadStartTime.of(pid, pin.tid()).equals(OptionalLong.of(pin.startTime()));
    }

    /** Whether thread {@code tid} is pinned now. */
    public boolean isPinned(int tid) {
        return pins.containsKey(tid);
    }

    /**
     * Waits, at most {@code patience} in all, until each of {@code tids} that is pinned has been on one of its
     * new CPUs ({@link LastCpu}). A thread asleep when it was pinned stays on its old CPU until it wakes, and the
     * kernel counts that move as a migration: counters opened after the move do not see it. A thread that does
     * not run meanwhile is counted all the same, and its first move may then show as one migration.
     */
    public void awaitOnTheirCpus(Iterable<Integer> tids, Duration patience) {
        long deadline = System.nanoTime() + patience.toNanos();
        for (int tid : tids) {
            Pin pin = pins.get(tid);
            while (pin != null && !isOn(tid, pin.cpus()) && System.nanoTime() < deadline) {
                LockSupport.parkNanos(MOVE_POLL_NANOS);
            }
        }
    }

    /** Also true for a thread that ended: it will not move any more. */
    private boolean isOn(int tid, CpuSet cpus) {
        OptionalInt cpu = LastCpu.of(pid, tid);
        return cpu.isEmpty() || cpus.contains(cpu.getAsInt());
    }

    /**
     * What a placement that chose CPUs chose for {@code placed}, in one line for the caller's voice, such as
     * {@code pin=core placed worker-1 on CPU 0, worker-2 on CPU 1}; empty for a placement that chose none (a CPU list
     * is the user's own, {@code any} is every CPU) or no pin. Long names are cut, keeping start and end.
     *
     * @param how the placement as the user asked it, such as {@code pin=core}
     */
    public static String placed(String how, List<Pin> placed) {
        List<Pin> chosen = placed.stream()
                .filter(p -> p.assignment().reservation().isPresent())
                .collect(Collectors.toList());
        if (chosen.isEmpty()) {
            return "";
        }
        return how + " placed "
                + chosen.stream()
                        .map(p -> TerminalText.fit(p.name(), NAME_COLUMNS)
                                + " on "
                                + p.placed().inWords())
                        .collect(Collectors.joining(", "));
    }

    /**
     * Gives the thread of {@code pin} back the affinity it had, unless it is no longer the thread pinned or someone
     * else pinned it since (said), and frees its reservation either way. Nothing for null.
     */
    public void restore(Pin pin) {
        if (pin == null) {
            return;
        }
        try {
            giveBack(pin);
        } finally {
            if (pins.remove(pin.tid(), pin)) {
                pinnedElsewhere.remove(pin.tid());
            }
            if (pin.thread() != null && pin.thread() == Thread.currentThread()) {
                creatorPinned.remove(); // given back on the thread itself (a task that left it): its children are not
            }
            release(pin.tid());
            pin.assignment().close();
        }
    }

    private void giveBack(Pin pin) {
        int tid = pin.tid();
        if (!isStill(pin)) {
            return; // it ended, and its TID may be another thread's now
        }
        if (process != null) {
            try {
                process.check();
            } catch (ProcessChangedException e) {
                if (!e.exited()) { // else it has ended too
                    leftAlone = true;
                    say.accept("left thread '" + pin.name() + "' (tid " + tid + ") alone: " + e.getMessage());
                }
                return;
            }
        }
        try {
            CpuSet now = affinity.get(tid);
            if (now.equals(pin.cpus())) {
                affinity.set(tid, pin.before());
            } else {
                say.accept("left thread '" + pin.name() + "' (tid " + tid + ") on " + now.inWords() + ": its"
                        + " affinity was changed while perfpin had it on "
                        + pin.cpus().inWords() + " (before: "
                        + pin.before().inWords() + ")");
            }
        } catch (NativeException e) {
            if (e.errno() != Errno.ESRCH) {
                say.accept("cannot give thread '" + pin.name() + "' (tid " + tid + ") its "
                        + pin.before().inWords() + " back: " + e.getMessage());
            }
        }
    }

    /**
     * Gives every thread still pinned its affinity back ({@link #restore}), and says so for each that could not
     * have it or that someone else pinned since (one that ended meanwhile needs nothing back); then ends the
     * watchdog.
     */
    @Override
    public void close() {
        Throwable failure = null;
        closing.writeLock().lock();
        try {
            closed = true;
            for (Pin pin : pins.values()) { // no copy: a close allocates as little as it can, the heap may be full
                try {
                    restore(pin);
                } catch (RuntimeException | Error e) {
                    // the others are still given back, whatever this one met (a heap out of memory, say); the first
                    // failure is the caller's to say
                    failure = failure == null ? e : failure;
                }
            }
        } finally {
            pins.clear();
            pinnedElsewhere.clear();
            synchronized (this) {
                if (watchdog != null) {
                    watchdog.close();
                    watchdog = null;
                }
                watchdogClosed = true; // a pin after the close starts none again
            }
            closing.writeLock().unlock();
        }
        if (failure instanceof Error error) {
            throw error;
        } else if (failure != null) {
            throw (RuntimeException) failure;
        }
    }

    /** Whether a thread was left pinned because its process is no longer the one checked. */
    public boolean leftAlone() {
        return leftAlone;
    }

    /**
     * For the calling thread of this JVM as it starts: Linux gives a new thread its creator's affinity, so a thread
     * started by a thread perfpin pinned would silently run pinned too. Unless {@code inheritPin}, it gets the
     * process's back. A thread whose creator the application pinned itself keeps what it inherited, as it would
     * without perfpin, even on CPUs perfpin pinned another thread to.
     *
     * @return true when the thread runs with a pin it inherited (and keeps)
     * @throws NativeException when its pin cannot be read or reset
     */
    public boolean threadStarting(boolean inheritPin) {
        if (!pinnedHere) {
            return false; // nothing pinned yet, so nothing to inherit: nothing done on this path
        }
        // a read of the thread's own map (made empty where it has none): cheaper than the system call it spares
        String fromCreator = creatorPinned.get();
        if (fromCreator == null && pinnedElsewhere.isEmpty()) {
            return false; // its creator was not pinned by perfpin: no system call
        }
        int tid = affinity.currentTid();
        CpuSet mask = affinity.get(tid);
        if (mask.equals(processCpus) || !(mask.toString().equals(fromCreator) || isPinnedElsewhere(mask))) {
            creatorPinned.remove(); // runs as its creator let it (not perfpin): so do its own children
            return false;
        }
        if (inheritPin) {
            return true; // keeps the mark: its own children get the process's CPUs back, as it would have
        }
        affinity.set(tid, processCpus);
        creatorPinned.remove();
        return false;
    }

    /** Whether a thread pinned from another thread is pinned to {@code mask} now. */
    private boolean isPinnedElsewhere(CpuSet mask) {
        for (int tid : pinnedElsewhere) {
            Pin pin = pins.get(tid);
            if (pin != null && pin.cpus().equals(mask)) {
                return true;
            }
        }
        return false;
    }

    /** The CPUs thread {@code tid} may run on, as text; empty when it cannot be read (the thread is gone). */
    public String cpusOf(int tid) {
        try {
            CpuSet cpus = affinity.get(tid);
            return cpus.equals(processCpus) ? processCpusText : cpus.toString();
        } catch (RuntimeException e) {
            return "";
        }
    }

    /**
     * Reads the CPU topology ahead of the first pin, off the threads being pinned. When it cannot (a process out of
     * file descriptors), nothing is said: no pin may ever need it, and a pin that does reads it again and says why
     * it could not pin.
     */
    public void readTopology() {
        try {
            topology();
        } catch (RuntimeException e) {
            // read again by the first pin
        }
    }

    /** Whether the CPU topology was read: a registry where nothing pins never reads it. */
    public boolean topologyRead() {
        return topology != null;
    }

    /** In another process, its CPUs as the agent in it would see them: perfpin's own may be others. */
    private CpuTopology topology() {
        CpuTopology read = topology;
        if (read == null) {
            synchronized (readingTopology) {
                read = topology;
                if (read == null) {
                    read = process == null ? CpuTopology.live() : CpuTopology.ofProcess(pid);
                    topology = read;
                }
            }
        }
        return read;
    }

    private synchronized CpuReservations reservations() throws IOException {
        if (reservations == null) {
            reservations = CpuReservations.openDefault();
        }
        return reservations;
    }

    private void watch(int tid, long startTime, CpuSet before, CpuSet pinned) {
        PinWatchdog started = watchdog();
        if (started == null) {
            return;
        }
        try {
            started.pinning(
                    pid, tid, startTime, program, before.toMask(before.maskWords()), pinned.toMask(pinned.maskWords()));
        } catch (NativeException e) {
            unwatched(started, e);
        }
    }

    private synchronized void release(int tid) {
        if (watchdog != null && !unwatched) {
            try {
                watchdog.released(pid, tid);
            } catch (NativeException e) {
                unwatched(watchdog, e);
            }
        }
    }

    /** Started at the first pin where one is wanted; null when not, or when it cannot be, or is gone (said once). */
    private synchronized PinWatchdog watchdog() {
        if (program == null || watchdogClosed) {
            return null;
        }
        if (watchdog == null && !unwatched) {
            if (!PinWatchdog.startsWith(syscalls)) {
                unwatched("the " + syscalls.backend().name().toLowerCase() + " backend cannot start the watchdog"
                        + " that would restore them (only perfpin's JNI library can fork a JVM safely)");
            } else {
                try {
                    watchdog = PinWatchdog.start(syscalls);
                } catch (NativeException e) {
                    unwatched("the watchdog that would restore them did not start: " + e.getMessage());
                }
            }
        }
        return unwatched ? null : watchdog;
    }

    private void unwatched(PinWatchdog failed, NativeException e) {
        unwatched(
                "telling the watchdog that restores them (pid " + failed.pid() + ") failed: " + Errno.name(e.errno()));
    }

    private synchronized void unwatched(String why) {
        if (!unwatched) {
            unwatched = true;
            say.accept("pins will not survive a SIGKILL of perfpin: " + why
                    + "; they are still undone when perfpin ends, Ctrl-C included");
        }
    }
}
