package io.perfpin.registry;

import io.perfpin.counter.CounterSnapshot;
import io.perfpin.counter.DescriptorBudget;
import io.perfpin.counter.DescriptorTable;
import io.perfpin.counter.KeptSwitchedOn;
import io.perfpin.counter.ThreadCounters;
import io.perfpin.cpu.Placement;
import io.perfpin.cpu.ThreadPins;
import io.perfpin.event.EventList;
import io.perfpin.jvm.ThisProcess;
import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.stats.AgentNotice;
import io.perfpin.stats.StatsClosing;
import io.perfpin.stats.StatsFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The threads perfpin pins and counts in this JVM, and the one sampler thread that publishes them.
 *
 * <p>A thread enrols itself ({@link #enrolCurrentThread}) when it starts running, so it is counted from its
 * first instruction; this pins it and opens its counters on that thread, once, and nothing more
 * ({@link EnrolledThreads}). Everything else happens on the {@link Sampler}: each tick reads every thread's
 * counters (see {@link ThreadCounters}), records them ({@link RecordingWriter}), publishes them to the stats file
 * ({@link StatsPublisher}), and finalises threads that ended: their last counts become final records, their
 * descriptors close and their CPU reservations are freed ({@link ThreadPins}).
 *
 * <p>perfpin holds its descriptors within a budget, a share of those the process had free when the registry
 * started ({@link RegistryConfig#descriptors()}): a thread whose counters would go beyond it, or whose
 * counters the kernel cannot open for want of descriptors, is enrolled not counted. It holds no descriptor,
 * its final record says why for each event, the stats file counts it, and it shows in no live slot.
 *
 * <p>Failures never reach the application: they are reported through the warning sink, once each ({@link Notices}).
 */
public final class ThreadRegistry implements AutoCloseable {
    private final Syscalls syscalls;
    private final DescriptorBudget descriptors;
    private final Notices notices;
    private final ThreadPins pins;
    private final EnrolledThreads threads;
    private final RecordingWriter recording;
    /** Keeps the kernel's code for the default software events switched on: enrolment stays cheap. */
    private final KeptSwitchedOn switchedOn;

    private final Sampler sampler;
    /** Held while closing: a second caller (detach and the shutdown hook at once) waits until the first is done. */
    private final ReentrantLock closeLock = new ReentrantLock();

    private boolean closed;
    /** False once a close at the JVM's exit gave up waiting for the sampler; read and written under closeLock. */
    private boolean samplerBack = true;

    /** Work that shares the sampler's tick: it runs after the threads are published, before the flush. */
    public interface TickListener {
        /**
         * The threads this tick read, before {@link #afterTick}: those that go on, and those it finalised (their
         * counts final, their descriptors closed). An export reads them here, so it makes no system call of its own.
         */
        default void threadsRead(List<? extends SampledThread> live, List<? extends SampledThread> finished) {}

        /**
         * @param record     writes one JSON line to the recording (nothing when there is none)
         * @param finalPass  true once, at close, after every thread's final record
         */
        void afterTick(long epochMillis, boolean finalPass, Consumer<String> record);

        /**
         * Whether this listener has somewhere to send the last tick at close (an export's final totals), when the
         * registry has neither stats file nor recording: without one that does, the last tick is skipped. Must not
         * throw.
         */
        default boolean wantsLastTick() {
            return true;
        }
    }

    private ThreadRegistry(
            Syscalls syscalls,
            RegistryConfig config,
            DescriptorBudget descriptors,
            StatsFile stats,
            RecordingWriter recording,
            Notices notices) {
        this.syscalls = syscalls;
        this.descriptors = descriptors;
        this.notices = notices;
        StatsPublisher publisher = stats == null ? null : publisher(stats, config);
        if (publisher != null) {
            notices.publishTo(publisher);
        }
        this.recording = recording;
        // Restores that cannot be had are what the options asked and the agent could not do.
        this.pins = ThreadPins.ofThisProcess(syscalls, new Refused(notices));
        this.threads = new EnrolledThreads(syscalls, config.defaultEvents(), descriptors, pins, notices);
        this.switchedOn = KeptSwitchedOn.open(syscalls, config.defaultEvents().events(), descriptors);
        Sampler made;
        try {
            made = new Sampler(
                    threads,
                    recording,
                    publisher,
                    notices,
                    pins,
                    new DescriptorTable(syscalls),
                    config.intervalNanos(),
                    config.statsFileLater() == null ? null : new StatsFileLater(config),
                    config.deferredDelayNanos(),
                    config.topologyAtStart());
        } catch (RuntimeException | Error e) {
            switchedOn.close();
            throw e;
        }
        this.sampler = made;
    }

    /**
     * Creates the stats file and recording the config asks for, and starts the sampler thread. A stats file asked
     * for later ({@link RegistryConfig#withStatsFileLater}) is made by the sampler shortly after, while the calling
     * thread goes on.
     *
     * @throws IOException when a file asked for now cannot be written: the registry does not start
     */
    public static ThreadRegistry start(Syscalls syscalls, RegistryConfig config, NoticeSink sink) throws IOException {
        return start(syscalls, config, sink, RecordingWriter.FILES, null);
    }

    /**
     * As {@link #start(Syscalls, RegistryConfig, NoticeSink)}, with the thread of {@code ahead} enrolled as its
     * counters opened, with the default events, which must be {@code config}'s. Where the start fails, {@code ahead}
     * stays its caller's to close.
     */
    public static ThreadRegistry start(Syscalls syscalls, RegistryConfig config, NoticeSink sink, CountedAhead ahead)
            throws IOException {
        return start(syscalls, config, sink, RecordingWriter.FILES, ahead);
    }

    /** As {@link #start(Syscalls, RegistryConfig, NoticeSink)}, its recording opened by {@code recordings}. */
    static ThreadRegistry start(
            Syscalls syscalls, RegistryConfig config, NoticeSink sink, RecordingWriter.Opener recordings)
            throws IOException {
        return start(syscalls, config, sink, recordings, null);
    }

    private static ThreadRegistry start(
            Syscalls syscalls,
            RegistryConfig config,
            NoticeSink sink,
            RecordingWriter.Opener recordings,
            CountedAhead ahead)
            throws IOException {
        // Counted before perfpin opens anything: what the application had free is what it shares.
        DescriptorBudget descriptors =
                ahead != null ? ahead.descriptors() : DescriptorBudget.forThisProcess(config.descriptors());
        Notices notices = new Notices(sink);
        if (config.statsFileLater() != null) {
            notices.expectStatsFile();
        }
        // The stats file holds no descriptor once mapped; the recording holds one while it is open.
        StatsFile stats = null;
        if (config.statsFile() != null) {
            try {
                stats = createStatsFile(config.statsFile(), config, descriptors, syscalls.simulatedPmu());
            } catch (IOException e) {
                throw new IOException("cannot write the stats file: " + e.getMessage(), e);
            }
        }
        RecordingWriter recording;
        try {
            recording = RecordingWriter.create(config.jsonLines(), descriptors, notices, recordings);
        } catch (IOException e) {
            abandon(syscalls, stats, e);
            throw new IOException("cannot write the recording: " + e.getMessage(), e);
        }
        ThreadRegistry registry;
        try {
            registry = new ThreadRegistry(syscalls, config, descriptors, stats, recording, notices);
        } catch (RuntimeException | Error e) {
            try {
                recording.close();
            } catch (RuntimeException alsoFailed) {
                e.addSuppressed(alsoFailed);
            }
            abandon(syscalls, stats, e);
            throw e;
        }
        try {
            // Through the one channel, so that the views of this agent say it too (tests only).
            String simulated = Backends.simulatedPmuNotice(syscalls);
            if (simulated != null) {
                notices.sayOnce(AgentNotice.info(simulated));
            }
            // before the sampler's first tick, which then publishes it; counters it did not take are nobody's
            if (ahead != null && !registry.threads.enrol(ahead)) {
                ahead.close();
            }
            registry.sampler.start(); // no thread to be had (a container at its pids limit) fails the start
        } catch (RuntimeException | Error e) {
            registry.close(); // its recording and stats file closed, its descriptors given back
            throw e;
        }
        return registry;
    }

    /** A stats file made for a registry that did not start: marked closed, so that no viewer waits for it; let go. */
    private static void abandon(Syscalls syscalls, StatsFile stats, Throwable failure) {
        if (stats != null) {
            try {
                stats.close();
            } catch (IOException alsoFailed) {
                failure.addSuppressed(alsoFailed);
            }
            stats.release(syscalls);
        }
    }

    /** With the name of the simulated PMU that makes its hardware counts ({@code pmu}; null: the kernel's). */
    private static StatsFile createStatsFile(Path path, RegistryConfig config, DescriptorBudget descriptors, String pmu)
            throws IOException {
        StatsFile stats = StatsFile.create(
                path,
                ThisProcess.namespacePid(), // as a viewer names the JVM, and its file
                System.currentTimeMillis(),
                config.intervalNanos(),
                config.eventCapacity(),
                config.liveSlots(),
                config.finishedSlots(),
                config.agentOptions(),
                pmu,
                // Every selected event is a column from the start, in --events order, named before a viewer can open
                // the file: a viewer writes its CSV header from the first frame, before any thread is enrolled, and
                // checks --columns against them; one column per event is the output contract (docs/outputs.md). An
                // event a thread's own list adds later gets its column then.
                config.defaultEvents().names());
        stats.descriptorBudget(descriptors.budget());
        return stats;
    }

    private StatsPublisher publisher(StatsFile stats, RegistryConfig config) {
        return new StatsPublisher(stats, config.liveSlots(), syscalls, notices);
    }

    /*
     * Classes rather than lambdas, here and below: the registry starts in the agent's premain, on the application's
     * main thread, and closes on its exit path, where linking a lambda cost more than the work it stands for.
     */

    /** What a pin's restore could not do, said as refused: it is what the options asked that the agent could not. */
    private static final class Refused implements Consumer<String> {
        private final Notices notices;

        Refused(Notices notices) {
            this.notices = notices;
        }

        @Override
        public void accept(String text) {
            notices.sayOnce(AgentNotice.refused(text));
        }
    }

    /** The stats file asked for later, made by the sampler shortly after it starts. */
    private final class StatsFileLater implements Sampler.Deferred {
        private final RegistryConfig config;

        StatsFileLater(RegistryConfig config) {
            this.config = config;
        }

        @Override
        public void run() {
            publishLater(config);
        }

        @Override
        public void skipped() {
            notices.noStatsFile();
        }
    }

    /** On the sampler, shortly after it starts: the stats file asked for later, or none, said once. */
    private void publishLater(RegistryConfig config) {
        Path path = null;
        StatsFile made = null;
        try {
            path = config.statsFileLater().get();
            if (path != null) {
                made = createStatsFile(path, config, descriptors, syscalls.simulatedPmu());
                StatsPublisher publisher = publisher(made, config);
                sampler.publishTo(publisher);
                made = null; // the sampler's to close from now on
                notices.publishTo(publisher);
                return;
            }
        } catch (IOException | RuntimeException | Error e) {
            // a file made but never published to is marked closed, so that no viewer waits on it for updates
            closeUnpublished(made);
            // a failure, with its cause: a log= file keeps why the file could not be made (a full disk, say); an
            // InternalError is a fault of its mapping, which must not end the sampler that counts
            try {
                notices.sayOnce(AgentNotice.failure(
                        "no live view (perfpin top, attach and run show nothing): cannot write the stats file " + path,
                        e,
                        "counting and recording go on"));
            } catch (RuntimeException | Error unsaid) {
                // a heap out of memory: the notices held for the file are let go all the same, below
            }
        }
        notices.noStatsFile();
    }

    private static void closeUnpublished(StatsFile made) {
        if (made != null) {
            try {
                made.close();
            } catch (IOException | RuntimeException | Error e) {
                // said with the failure that came first
            }
        }
    }

    /** The file descriptors perfpin may hold in this process: whatever else it opens there takes from them. */
    public DescriptorBudget descriptors() {
        return descriptors;
    }

    /**
     * The file the recording goes to: the one the config names, or, when another JVM writes that one, this JVM's
     * beside it ({@link io.perfpin.report.RecordingFile}); null when nothing is recorded.
     */
    public Path recordingFile() {
        return recording.path();
    }

    /**
     * A virtual thread that ended, with its final counts: the stats file's next tick adds it to its group (virtual
     * threads have no slot of their own). Called by a tick listener, on the sampler's thread.
     */
    public void virtualEnded(String name, EventList events, CounterSnapshot counts) {
        sampler.virtualEnded(name, events, counts);
    }

    /**
     * {@code members} virtual threads of {@code group} that ended with no record of their own, {@code counts} their
     * final counts summed: the next tick adds them to their group in the stats file. On the sampler's thread.
     */
    public void virtualFolded(String group, EventList events, CounterSnapshot counts, int members) {
        sampler.virtualFolded(group, events, counts, members);
    }

    /**
     * The groups of virtual threads with members running now, as one tick found them: the stats file's next tick shows
     * them beside the ended members (a group not among them has none running).
     */
    public void virtualRunning(List<RunningVirtualGroup> groups) {
        sampler.virtualRunning(groups);
    }

    /** Adds a listener that runs on every tick of the sampler, after those added before it. */
    public void onTick(TickListener listener) {
        sampler.onTick(listener);
    }

    /**
     * Pins (when {@code placement} is not null) and counts the calling thread from now on.
     *
     * @param events null for the configured default events
     * @return false when this thread is already enrolled (or the registry is closing)
     */
    public boolean enrolCurrentThread(EventList events, Placement placement) {
        return enrolCurrentThread(events, placement, false);
    }

    /**
     * As {@link #enrolCurrentThread(EventList, Placement)}, for a thread that {@link #threadStarting} found
     * running with a pin it inherited and keeps: its records say so.
     */
    public boolean enrolCurrentThread(EventList events, Placement placement, boolean inheritedPin) {
        return threads.enrol(Thread.currentThread(), syscalls.gettid(), events, placement, inheritedPin);
    }

    /**
     * Pins and counts a running thread by its TID, as after a dynamic attach, where the thread dump maps each
     * Java thread to its TID. It is counted from now on.
     */
    public boolean enrol(Thread thread, int tid, EventList events, Placement placement) {
        return threads.enrol(thread, tid, events, placement, false);
    }

    /**
     * Has perfpin's C library enrol the threads that {@code hooks.decide(Thread)} says to count, with the default
     * events, as the JVM starts them: no Java runs on them ({@link io.perfpin.nativeio.NativeEnrolment}), and the
     * sampler takes them in on its next tick. Those it decides otherwise go to {@code hooks.runStarting}.
     *
     * @return false where C cannot (another backend than JNI, events the kernel does not count in one group for
     *         every thread): every thread then goes the Java way
     */
    public boolean enrolInC(Class<?> hooks) {
        return threads.enrolInC(hooks);
    }

    /**
     * Says that pins may come that no rule of the registry's start named, as when a {@code @Pinned} task's class is
     * woven: the sampler reads the CPU topology once its deferred work is done, if no pin has. A pin that comes first
     * reads it itself, before its thread's counters open, or waits for the sampler's read under way: a one-time delay
     * of that thread's start, not in its counts.
     */
    public void pinsAhead() {
        sampler.readTopologySoon();
    }

    /** Whether the CPU topology was read, for the tests of when. */
    boolean topologyRead() {
        return pins.topologyRead();
    }

    /**
     * Pins a thread that is counted but not pinned, as when an annotated task starts on a thread that a name
     * rule already counts; nothing happens to a thread not counted or already pinned.
     */
    public void pin(Thread thread, Placement placement) {
        threads.pin(thread, placement);
    }

    /**
     * Called by every thread as it starts running, before any enrolment. Linux gives a new thread its
     * creator's affinity, so a thread started by a pinned thread would silently run pinned too: unless
     * {@code inheritPin} (a rule says so), it gets the process's affinity back.
     *
     * @return true when the thread runs with a pin it inherited (and keeps)
     */
    public boolean threadStarting(boolean inheritPin) {
        try {
            return pins.threadStarting(inheritPin);
        } catch (RuntimeException e) {
            // on the application's thread as it starts: said once for its reason, not for each thread, which may be
            // many, and it runs on with the pin it inherited
            notices.sayOnce(new AgentNotice(
                    AgentNotice.Kind.INFO,
                    "cannot reset an inherited pin: " + PinRefusals.kind(e),
                    "cannot reset the inherited pin of '"
                            + Thread.currentThread().getName() + "': " + e.getMessage(),
                    null));
            return false;
        }
    }

    /** Whether this thread is counted now. */
    public boolean isEnrolled(Thread thread) {
        return threads.isEnrolled(thread);
    }

    /** Called by a thread leaving its run(): its final counts are taken on the sampler's next tick. */
    public void threadEnded(Thread thread) {
        try {
            if (threads.threadEnded(thread)) {
                sampler.wake();
            }
        } catch (RuntimeException e) {
            stoppingFailed(e);
        }
    }

    /**
     * Stops counting a thread that goes on running, as when an annotated task returns to its pool: its counts
     * freeze now, the pin perfpin gave it is undone and its reservation freed, and the sampler writes its final
     * record on its next tick. The thread may be enrolled again afterwards.
     */
    public void leave(Thread thread) {
        try {
            if (threads.leave(thread)) {
                sampler.wake();
            }
        } catch (RuntimeException e) {
            stoppingFailed(e);
        }
    }

    /**
     * On the application's thread, which goes on: said once, whichever thread; the thread is finished all the same,
     * on the sampler, now.
     */
    private void stoppingFailed(RuntimeException e) {
        notices.sayOnce(AgentNotice.failure("stopping a thread's count as it ended or left its task", e));
        sampler.wake();
    }

    /**
     * The most the JVM's exit waits for the sampler to come back from its tick, and for a close under way on another
     * thread: a write to a file system that does not answer (a hung network mount) would otherwise hold the exit for
     * good, and the application's with it.
     */
    public static final long EXIT_WAIT_MILLIS = 10_000;

    /**
     * Stops counting: every thread's final record is written, its descriptors closed, its reservation freed,
     * and a thread perfpin pinned gets back the affinity it had before. The stats file is marked closed. Once
     * only, whoever calls it and however often: a caller that comes while another closes returns when that one
     * is done, so neither the shutdown hook nor a detach returns before the final records are written. Each step
     * runs whatever failed before it: every descriptor is closed and every pin undone all the same, and what failed
     * is said once, in one notice. Waits for the sampler however long its tick takes: a sampler that came back later
     * would read descriptors given back, and maybe the application's by then.
     */
    @Override
    public void close() {
        close(0, StatsClosing.WHILE_RUNNING);
    }

    /**
     * As {@link #close}, at the JVM's exit: waits at most {@value #EXIT_WAIT_MILLIS} ms for a close under way on
     * another thread, and as long again for the sampler, whose last tick writes the final records. Past that, what
     * waits for the sampler (the final records, the stats file's close, the recording's, which a write that does not
     * return would hold) is left, said once on stderr, and the exit goes on: the JVM's end gives back the descriptors
     * the sampler may still read.
     *
     * @return false when it gave up waiting: the exports' last totals, which that tick publishes, are not to be sent
     */
    public boolean closeAtExit() {
        return close(TimeUnit.MILLISECONDS.toNanos(EXIT_WAIT_MILLIS), StatsClosing.AT_EXIT);
    }

    /**
     * @param boundNanos the most to wait for a close under way, and then for the sampler; 0 for no bound
     * @param why        why the stats file is closed, as it says to its viewers
     * @return false when it gave up waiting for either
     */
    boolean close(long boundNanos, StatsClosing why) {
        if (!lockClose(boundNanos)) {
            givenUp("the JVM exits while the agent still closes on another thread, past "
                    + TimeUnit.NANOSECONDS.toMillis(boundNanos) + " ms: what that close has not written is lost");
            return false;
        }
        try {
            if (closed) {
                if (!samplerBack && boundNanos == 0) {
                    // a detach after an exit that gave up on the sampler: it waits for it, as any detach does
                    samplerBack = sampler.finish(0, why);
                    closeRecording();
                }
                return samplerBack;
            }
            closed = true;
            // Made as a step fails, not before: a close that follows a failure for want of heap (a start that failed)
            // runs every step all the same, whether or not it can say why one failed.
            List<String> failures = null;
            for (Closing step : CLOSING_STEPS) {
                if (!samplerBack && step.waitsForSampler) {
                    continue;
                }
                try {
                    // ifs, not a switch: javac keeps an enum switch's table in a class made the first time it runs
                    if (step == Closing.ENROLMENTS) {
                        threads.close();
                    } else if (step == Closing.THREADS) {
                        samplerBack = sampler.finish(boundNanos, why);
                    } else if (step == Closing.PINS) {
                        pins.close();
                    } else if (step == Closing.SWITCHED_ON) {
                        switchedOn.close();
                    } else if (step == Closing.RECORDING) {
                        recording.close();
                    }
                } catch (RuntimeException | Error e) {
                    try {
                        failures = withFailure(failures, step.what + ": " + e);
                    } catch (RuntimeException | Error unsaid) {
                        // no heap to say it: the next step runs all the same
                    }
                }
            }
            if (!samplerBack) {
                failures = withFailure(
                        failures,
                        "the sampler has not come back from its tick in "
                                + TimeUnit.NANOSECONDS.toMillis(boundNanos)
                                + " ms (a write to a file system that does not"
                                + " answer, or a listener that does not return): the JVM exits without the final records, and"
                                + " without closing the recording and the stats file");
            }
            if (failures != null) {
                String text = "closing failed: " + String.join("; ", failures);
                if (samplerBack) {
                    notices.sayOnce(AgentNotice.refused(text));
                } else {
                    givenUp(text);
                }
            }
            return samplerBack;
        } finally {
            closeLock.unlock();
        }
    }

    /** {@code failures} with {@code failure} added, made with the first: a close that fails nothing allocates none. */
    private static List<String> withFailure(List<String> failures, String failure) {
        List<String> with = failures == null ? new ArrayList<>() : failures;
        with.add(failure);
        return with;
    }

    /** Said on stderr, whatever {@code quiet} says: the sampler, which writes notices to the stats file, is gone. */
    private void givenUp(String text) {
        notices.unpublish();
        notices.sayOnce(AgentNotice.refused(text));
    }

    private void closeRecording() {
        try {
            recording.close();
        } catch (RuntimeException | Error e) {
            notices.sayOnce(AgentNotice.refused("closing failed: " + Closing.RECORDING.what + ": " + e));
        }
    }

    /**
     * Takes the close lock, waiting at most {@code boundNanos} where it is not 0. An interrupt does not end the wait:
     * the thread gets it back after.
     */
    private boolean lockClose(long boundNanos) {
        if (boundNanos == 0) {
            closeLock.lock();
            return true;
        }
        long deadline = System.nanoTime() + boundNanos;
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return closeLock.tryLock(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * {@link Closing}'s steps, made with this class, as the registry starts: made by its close, after a failure for
     * want of heap, the enum could be left unusable, and no step would run.
     */
    private static final Closing[] CLOSING_STEPS = Closing.values();

    /** The steps of {@link #close}, in order; each runs whatever failed before it. */
    private enum Closing {
        ENROLMENTS("waiting for enrolments under way", false),
        THREADS("finishing the threads", true),
        // Finishing gave each thread its CPUs back; this gives back any pin a failure above left behind.
        PINS("giving the threads their CPUs back", false),
        SWITCHED_ON("closing the counters kept switched on", false),
        // a sampler stuck in a write to it would hold its close too
        RECORDING("closing the recording", true);

        private final String what;
        /** Skipped at the JVM's exit when the sampler has not come back from its tick. */
        private final boolean waitsForSampler;

        Closing(String what, boolean waitsForSampler) {
            this.what = what;
            this.waitsForSampler = waitsForSampler;
        }
    }

    /** Posts a notice that the agent said for viewers of the stats file, when there is one. */
    public void post(AgentNotice notice) {
        notices.post(notice);
    }

    /** Whether a notice posted now reaches viewers through the stats file. */
    public boolean publishesNotices() {
        return notices.published();
    }
}
