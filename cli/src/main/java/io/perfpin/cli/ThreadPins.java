package io.perfpin.cli;

import io.perfpin.cpu.CpuAssignment;
import io.perfpin.cpu.CpuReservations;
import io.perfpin.cpu.CpuSet;
import io.perfpin.cpu.CpuTopology;
import io.perfpin.cpu.Placement;
import io.perfpin.cpu.ThreadAffinity;
import io.perfpin.jvm.LastCpu;
import io.perfpin.jvm.ProcessChangedException;
import io.perfpin.jvm.ProcessIdentity;
import io.perfpin.jvm.ThreadStartTime;
import io.perfpin.nativeio.Errno;
import io.perfpin.nativeio.NativeException;
import io.perfpin.nativeio.PinWatchdog;
import io.perfpin.report.TerminalText;
import io.perfpin.nativeio.Syscalls;

import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Threads of another process that a command pinned, each with the affinity it had before: closing gives it
 * back and frees the CPUs reserved for it, so a command leaves the process as it found it. A
 * {@link PinWatchdog}, started at the first pin, does the same if perfpin is killed first.
 *
 * <p>A thread gets its CPUs back only while it is still the thread pinned (the same start time: the kernel
 * reuses TIDs), its process is still the one checked ({@link ProcessIdentity}: an exec keeps TIDs, start times
 * and masks, and a setuid program runs as root) and it still has the CPUs perfpin gave it: whoever pinned it
 * since then wins.
 */
final class ThreadPins implements AutoCloseable {
    /** A woken thread moves within microseconds; a millisecond keeps the wait from spinning on a CPU of two. */
    private static final long MOVE_POLL_NANOS = Duration.ofMillis(1).toNanos();

    private final Syscalls syscalls;
    private final ThreadAffinity affinity;
    private final ProcessIdentity process;
    private final int pid;
    /** What the watchdog checks of the process before it restores. */
    private final PinWatchdog.Program program;
    private final Map<Integer, Pin> pins = new LinkedHashMap<>();
    private CpuTopology topology;
    private CpuReservations reservations;
    private PinWatchdog watchdog;
    private boolean unwatched;
    private boolean leftAlone;

    /** {@code cpus}: the affinity perfpin gave the thread, as the kernel reported it back. */
    private record Pin(String name, long startTime, CpuSet before, CpuSet cpus, CpuAssignment assignment) {
    }

    /** Pins threads of {@code process}, and of no other that its pid may name later. */
    ThreadPins(Syscalls syscalls, ProcessIdentity process) {
        this.syscalls = syscalls;
        this.affinity = new ThreadAffinity(syscalls);
        this.process = process;
        this.pid = (int) process.pid();
        this.program = new PinWatchdog.Program(process.exeDevice(), process.exeInode(), process.credentials());
    }

    /**
     * Pins thread {@code tid} as {@code placement} says; returns the CPUs it now runs on.
     *
     * @throws IllegalArgumentException when the placement names CPUs the pinned thread's process may not use
     * @throws IllegalStateException    when no isolated CPU or whole core is free
     * @throws NativeException          with ESRCH when the thread has ended
     * @throws ProcessChangedException  when the pid no longer names the process checked: nothing was done to it
     * @throws IOException              when the thread ended as it was pinned, and the pin was undone
     */
    CpuSet pin(int tid, String name, Placement placement) throws IOException {
        long startTime = ThreadStartTime.of(pid, tid)
                .orElseThrow(() -> new NativeException("reading /proc/" + pid + "/task/" + tid + "/stat", Errno.ESRCH));
        return pin(tid, startTime, name, placement);
    }

    /** As {@link #pin(int, String, Placement)}, for the thread of {@code tid} that started at {@code startTime}. */
    CpuSet pin(int tid, long startTime, String name, Placement placement) throws IOException {
        if (topology == null) {
            // The process's CPUs, as the agent in it would see them: perfpin's own may be others.
            topology = CpuTopology.ofProcess(pid);
            reservations = CpuReservations.openDefault();
        }
        // The thread's name came from a thread dump that the process answered itself, whenever it chose to.
        process.check();
        CpuSet before = affinity.get(tid);
        CpuAssignment assignment = placement.assign(topology, reservations, tid, name);
        CpuSet cpus;
        try {
            // Told first, so that no moment exists in which the thread is pinned and the watchdog does not know.
            watch(tid, startTime, before, assignment.cpus());
            affinity.set(tid, assignment.cpus());
            undoIfChanged(tid, name, startTime, before);
            // The kernel keeps only the CPUs of the set that the thread's cpuset allows.
            cpus = affinity.get(tid);
            if (!cpus.equals(assignment.cpus())) {
                watch(tid, startTime, before, cpus);
            }
        } catch (IOException | RuntimeException e) {
            release(tid);
            assignment.close();
            throw e;
        }
        pins.put(tid, new Pin(name, startTime, before, cpus, assignment));
        return assignment.cpus();
    }

    /**
     * Between the checks before it and sched_setaffinity, the thread may have ended and its TID gone to another
     * thread, or the process may have exec'd: then the pin went to what was not checked. It is undone at once,
     * with the mask read before (a new thread's own when the TID changed hands before it was read, and
     * otherwise the mask its creator in the same process had, most likely the same), and said.
     */
    private void undoIfChanged(int tid, String name, long startTime, CpuSet before) throws IOException {
        IOException changed = null;
        if (!ThreadStartTime.of(pid, tid).equals(OptionalLong.of(startTime))) {
            changed = new IOException("thread '" + name + "' (tid " + tid + ") ended as perfpin pinned it, and its"
                    + " tid may be another thread's now");
        } else {
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
            affinity.set(tid, before);
            System.err.println(TerminalText.escape("perfpin: undid the pin of tid " + tid + " at once, back to CPUs "
                    + before + ": " + changed.getMessage()));
        } catch (NativeException e) {
            if (e.errno() != Errno.ESRCH) {
                throw e;
            }
        }
        throw changed;
    }

    boolean isPinned(int tid) {
        return pins.containsKey(tid);
    }

    /**
     * Waits, at most {@code patience} in all, until each of {@code tids} that is pinned has been on one of its
     * new CPUs ({@link LastCpu}). A thread asleep when it was pinned stays on its old CPU until it wakes, and the
     * kernel counts that move as a migration: counters opened after the move do not see it. A thread that does
     * not run meanwhile is counted all the same, and its first move may then show as one migration.
     */
    void awaitOnTheirCpus(Iterable<Integer> tids, Duration patience) {
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
     * Gives every pinned thread its affinity back, and says so for each that could not have it or that
     * someone else pinned since (one that ended meanwhile needs nothing back); then ends the watchdog.
     */
    @Override
    public void close() {
        try {
            pins.forEach((tid, pin) -> {
                try {
                    restore(tid, pin);
                } finally {
                    release(tid);
                    pin.assignment().close();
                }
            });
        } finally {
            pins.clear();
            if (watchdog != null) {
                watchdog.close();
            }
        }
    }

    /** Whether a thread was left pinned because its process is no longer the one checked. */
    boolean leftAlone() {
        return leftAlone;
    }

    private void restore(int tid, Pin pin) {
        if (!ThreadStartTime.of(pid, tid).equals(OptionalLong.of(pin.startTime()))) {
            return; // it ended, and its TID may be another thread's now
        }
        try {
            process.check();
        } catch (ProcessChangedException e) {
            if (!e.exited()) { // else it has ended too
                leftAlone = true;
                System.err.println(TerminalText.escape("perfpin: left thread '" + pin.name() + "' (tid " + tid
                        + ") alone: " + e.getMessage()));
            }
            return;
        }
        try {
            CpuSet now = affinity.get(tid);
            if (now.equals(pin.cpus())) {
                affinity.set(tid, pin.before());
            } else {
                System.err.println("perfpin: left thread '" + TerminalText.escape(pin.name()) + "' (tid " + tid
                        + ") on CPUs " + now + ": its affinity was changed while perfpin had it on CPUs " + pin.cpus()
                        + " (before: " + pin.before() + ")");
            }
        } catch (NativeException e) {
            if (e.errno() != Errno.ESRCH) {
                System.err.println("perfpin: cannot give thread '" + TerminalText.escape(pin.name()) + "' (tid " + tid
                        + ") its CPUs " + pin.before() + " back: " + e.getMessage());
            }
        }
    }

    private void watch(int tid, long startTime, CpuSet before, CpuSet pinned) {
        PinWatchdog started = watchdog();
        if (started == null) {
            return;
        }
        try {
            started.pinning(pid, tid, startTime, program, before.toMask(before.maskWords()),
                    pinned.toMask(pinned.maskWords()));
        } catch (NativeException e) {
            unwatched(started, e);
        }
    }

    private void release(int tid) {
        if (watchdog != null && !unwatched) {
            try {
                watchdog.released(pid, tid);
            } catch (NativeException e) {
                unwatched(watchdog, e);
            }
        }
    }

    /** Started at the first pin; null when it cannot be, or is gone (said once). */
    private PinWatchdog watchdog() {
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
        unwatched("telling the watchdog that restores them (pid " + failed.pid() + ") failed: "
                + Errno.name(e.errno()));
    }

    private void unwatched(String why) {
        if (!unwatched) {
            unwatched = true;
            System.err.println("perfpin: pins will not survive a SIGKILL of perfpin: " + why
                    + "; they are still undone when perfpin ends, Ctrl-C included");
        }
    }
}
