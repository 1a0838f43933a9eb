package io.perfpin.agent.impl;

import io.perfpin.counter.CounterSnapshot;
import io.perfpin.counter.Counts;
import io.perfpin.counter.DescriptorBudget;
import io.perfpin.counter.EventFailure;
import io.perfpin.counter.SelfCounters;
import io.perfpin.counter.VirtualThreadCounters;
import io.perfpin.event.EventList;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.report.MethodRecord;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

/**
 * Measures each invocation of a {@code @Counted} method on the calling thread: the thread's own counters
 * ({@link SelfCounters}: rdpmc where the kernel allows, read(2) otherwise) are read on entry and on exit, and
 * the difference goes to the method's per-thread recorder. Counters are opened on a thread's first counted
 * call and shared by the methods that count the same events. Nothing on the call path allocates once a
 * thread has called a method at a recursion depth before.
 *
 * <p>Counters are closed by their own thread when it leaves {@code run()}, or by the sampler once their
 * thread has died, or at detach. Only the owner reads them (rdpmc reads the CPU it runs on), and closing unmaps the
 * page the owner reads and frees the descriptor's number for the application's next file: a close from another thread
 * that finds the owner inside a read leaves the closing to the owner, as it finishes ({@link ThreadMethods#close}).
 */
final class MethodCounting {
    private static final int IDLE = 0;
    private static final int BUSY = 1;
    private static final int CLOSE_ASKED = 2;
    private static final int CLOSED = 3;

    private final Syscalls syscalls;
    /** The registry's: a thread's method counters take from the same descriptors as its thread counters. */
    private final DescriptorBudget descriptors;

    private final Set<ThreadMethods> threads = ConcurrentHashMap.newKeySet();
    /** Per method, the recorder its calls on virtual threads share. */
    private final Map<CountedMethod, CountedMethod.Recorder> virtualRecorders = new ConcurrentHashMap<>();
    /** Set on a thread's first counted call only: a thread that never makes one costs nothing here. */
    private final ThreadLocal<ThreadMethods> current = new ThreadLocal<>();

    private final EventList defaultEvents;
    private volatile CountedMethod[] methods = new CountedMethod[0];
    /** Set at detach: no thread opens counters after it. */
    private volatile boolean closed;

    MethodCounting(Syscalls syscalls, EventList defaultEvents, DescriptorBudget descriptors) {
        this.syscalls = syscalls;
        this.descriptors = descriptors;
        this.defaultEvents = defaultEvents;
    }

    /**
     * Registers a method as the weaver finds it; a method woven again (its class retransformed, by another agent or
     * by an attach's weaving of loaded classes) keeps its id, its summary and its recorders, rather than growing the
     * table and the records with a second entry of the same name.
     *
     * @param events its {@code @Counted} events; null for the agent's
     * @return its id, which the woven code passes back on every call
     */
    synchronized int register(String name, EventList events) {
        EventList counted = events == null ? defaultEvents : events; // parsed once per text: the same list
        for (int id = 0; id < methods.length; id++) {
            if (methods[id].name.equals(name) && methods[id].events == counted) {
                return id;
            }
        }
        CountedMethod[] grown = Arrays.copyOf(methods, methods.length + 1);
        grown[methods.length] = new CountedMethod(name, counted);
        methods = grown;
        return methods.length - 1;
    }

    Object entering(int method) {
        if (closed) {
            return null; // a call that read the hooks before detach took them off
        }
        ThreadMethods mine = current.get();
        if (mine == null) {
            mine = newThreadMethods();
            if (closed) {
                // detach came between: its close may not have seen this one
                mine.close();
                return null;
            }
            current.set(mine);
        }
        return mine.enter(method);
    }

    void exited(int method, Object token) {
        if (token instanceof VirtualFrame) {
            ((VirtualFrame) token).exit();
        } else {
            ((Frame) token).exit();
        }
    }

    /**
     * On a virtual thread, while the virtual= option counts them: the method's counts are the sum over the times
     * the thread was mounted between entry and exit, read from its carriers ({@link VirtualThreads#read}), for
     * those of the method's events that the carriers count. Null (not counted) otherwise.
     */
    Object enteringVirtual(int method) {
        VirtualThreads counting = VirtualThreads.current();
        long[] before = counting == null ? null : counting.read();
        return before == null ? null : new VirtualFrame(methods[method], counting, before);
    }

    /** The calling thread is leaving run(): it closes its own counters. */
    void threadEnded(Thread thread) {
        if (thread == Thread.currentThread()) {
            ThreadMethods mine = current.get();
            if (mine != null) {
                current.remove();
                threads.remove(mine);
                mine.close();
            }
        }
    }

    /**
     * On the sampler: hands on each method's summary, with the method's events, when it changed (or always, on the
     * final pass).
     */
    void publish(long epochMillis, boolean finalPass, BiConsumer<EventList, MethodRecord> summaries) {
        for (CountedMethod method : methods) {
            MethodRecord summary =
                    method.summary(finalPass ? MethodRecord.FINAL : MethodRecord.SAMPLE, epochMillis, !finalPass);
            if (summary != null) {
                summaries.accept(method.events, summary);
            }
        }
        for (ThreadMethods t : threads) {
            if (!t.owner.isAlive() && threads.remove(t)) {
                t.close();
            }
        }
    }

    /**
     * At detach, once the hooks are off: closes every thread's counters, or leaves them to a thread still inside a
     * call that read the hooks before, which closes them as it finishes its read.
     */
    void close() {
        closed = true;
        for (ThreadMethods t : threads) {
            t.close();
        }
        threads.clear();
    }

    private ThreadMethods newThreadMethods() {
        ThreadMethods t = new ThreadMethods(Thread.currentThread());
        threads.add(t);
        return t;
    }

    /** One thread's counters, recorders and call frames, by method id. */
    private final class ThreadMethods {
        final Thread owner;
        final Map<EventList, SelfCounters> counters = new LinkedHashMap<>();
        CountedMethod.Recorder[] recorders = new CountedMethod.Recorder[0];
        Frame[][] frames = new Frame[0][];
        int[] depth = new int[0];
        /** IDLE; BUSY while its owner uses its counters; CLOSE_ASKED, for the owner to close as it finishes; CLOSED. */
        private final AtomicInteger state = new AtomicInteger(IDLE);

        ThreadMethods(Thread owner) {
            this.owner = owner;
        }

        Frame enter(int id) {
            if (!use()) {
                return null;
            }
            try {
                return enterUsing(id);
            } finally {
                done();
            }
        }

        private Frame enterUsing(int id) {
            if (id >= recorders.length) {
                int size = methods.length;
                recorders = Arrays.copyOf(recorders, size);
                frames = Arrays.copyOf(frames, size);
                depth = Arrays.copyOf(depth, size);
            }
            CountedMethod method = methods[id];
            if (recorders[id] == null) {
                recorders[id] = method.newRecorder();
                frames[id] = new Frame[0];
            }
            SelfCounters self = counters.computeIfAbsent(method.events, this::open);
            int d = depth[id]++;
            if (d >= frames[id].length) {
                frames[id] = Arrays.copyOf(frames[id], d + 1);
            }
            Frame frame = frames[id][d];
            if (frame == null) {
                frame = new Frame(this, id, self, recorders[id]);
                frames[id][d] = frame;
                Map<String, String> reasons = new LinkedHashMap<>();
                for (EventFailure failure : self.unsupported()) {
                    reasons.put(failure.event().name(), failure.reason());
                }
                method.unsupported(reasons);
            }
            self.read(frame.before);
            return frame;
        }

        private SelfCounters open(EventList events) {
            return SelfCounters.open(syscalls, events.events(), descriptors);
        }

        /** Whether the owner may use its counters now: false once closed. Each true is followed by {@link #done}. */
        boolean use() {
            return state.compareAndSet(IDLE, BUSY);
        }

        /** The owner is done with its counters for now: it closes them itself if a close came meanwhile. */
        void done() {
            if (!state.compareAndSet(BUSY, IDLE)) {
                state.set(CLOSED); // CLOSE_ASKED: the closer left it to this thread
                closeCounters();
            }
        }

        /** From any thread: closed now, or by the owner as it finishes what it is doing with them. */
        void close() {
            while (true) {
                int now = state.get();
                if (now == CLOSED || (now == CLOSE_ASKED && owner.isAlive())) {
                    return;
                }
                if (now == IDLE && state.compareAndSet(IDLE, CLOSED)) {
                    closeCounters();
                    return;
                }
                if ((now == BUSY || now == CLOSE_ASKED) && !owner.isAlive()) {
                    // it died inside a read, and never finishes it: closed here, by whichever closer wins
                    if (state.compareAndSet(now, CLOSED)) {
                        closeCounters();
                    }
                    return;
                }
                if (now == BUSY && state.compareAndSet(BUSY, CLOSE_ASKED)) {
                    return;
                }
            }
        }

        private void closeCounters() {
            for (SelfCounters self : counters.values()) {
                self.close();
            }
        }
    }

    /**
     * One call in flight on a virtual thread. Its method's virtual threads share one recorder, written under its lock:
     * a recorder each would be kept for each of 100,000 virtual threads.
     */
    private final class VirtualFrame {
        final CountedMethod method;
        final VirtualThreads counting;
        final long[] before;

        VirtualFrame(CountedMethod method, VirtualThreads counting, long[] before) {
            this.method = method;
            this.counting = counting;
            this.before = before;
        }

        void exit() {
            long[] after = counting.read();
            if (after == null) {
                return;
            }
            List<String> carried = counting.events().names();
            int size = counting.events().events().size();
            Counts start = VirtualThreadCounters.counts(before, size);
            Counts end = VirtualThreadCounters.counts(after, size);
            CountedMethod.Recorder recorder = virtualRecorders.computeIfAbsent(method, CountedMethod::newRecorder);
            List<String> names = method.events.names();
            Map<String, String> reasons = new LinkedHashMap<>();
            synchronized (recorder) {
                for (int e = 0; e < names.size(); e++) {
                    int v = carried.indexOf(names.get(e));
                    if (v < 0) {
                        reasons.put(names.get(e), "not counted on virtual threads: virtual= counts the agent's events");
                    } else if (end.isCounted(v)) {
                        long value = end.value(v) - (start.isCounted(v) ? start.value(v) : 0);
                        recorder.totals[e] += value;
                        recorder.counted[e] = true;
                        recorder.histograms[e].record(value);
                    }
                }
                recorder.calls = recorder.calls + 1; // volatile: publishes the totals above to the sampler
            }
            method.unsupported(reasons);
        }
    }

    /** One call in flight: the counts at entry, and where the difference goes. */
    private static final class Frame {
        final ThreadMethods thread;
        final int method;
        final SelfCounters counters;
        final CountedMethod.Recorder recorder;
        final CounterSnapshot before;
        final CounterSnapshot after;
        final CounterSnapshot delta;

        Frame(ThreadMethods thread, int method, SelfCounters counters, CountedMethod.Recorder recorder) {
            this.thread = thread;
            this.method = method;
            this.counters = counters;
            this.recorder = recorder;
            this.before = counters.newSnapshot();
            this.after = counters.newSnapshot();
            this.delta = counters.newSnapshot();
        }

        void exit() {
            thread.depth[method]--;
            if (!thread.use()) {
                return; // closed
            }
            try {
                record();
            } finally {
                thread.done();
            }
        }

        private void record() {
            counters.read(after);
            CounterSnapshot.delta(after, before, delta);
            for (int e = 0; e < delta.size(); e++) {
                if (after.isCounted(e)) {
                    long value = delta.value(e);
                    recorder.totals[e] += value;
                    recorder.counted[e] = true;
                    recorder.histograms[e].record(value);
                }
            }
            recorder.calls = recorder.calls + 1; // volatile: publishes the totals above to the sampler
        }
    }
}
