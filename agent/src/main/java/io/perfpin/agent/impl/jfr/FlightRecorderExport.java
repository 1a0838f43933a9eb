package io.perfpin.agent.impl.jfr;

import io.perfpin.counter.CounterSnapshot;
import io.perfpin.event.BoundMetric;
import io.perfpin.event.EventList;
import io.perfpin.event.EventSpec;
import io.perfpin.registry.SampledThread;
import io.perfpin.report.MethodRecord;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import jdk.jfr.FlightRecorder;

/**
 * perfpin's counts as JFR events, while a recording wants them: on each sampler tick, a
 * {@code perfpin.ThreadCounters} event per counted thread with what it counted since its previous event, and a
 * {@code perfpin.MethodCounters} event per {@code @Counted} method summary written. Runs on the sampler only.
 *
 * <p>Nothing happens while JFR has never started (one static read per tick), and while no recording enables the
 * events, one check per tick: the types are made when JFR first runs, and the threads are followed only while a
 * recording is on. A thread enrolled before the recording began has its first event on the first tick that saw
 * the recording, covering the interval since; one enrolled later has all its counts in its events, so that its
 * events add up to its final record.
 *
 * <p>Loaded only where the runtime has the {@code jdk.jfr} module: a jlinked one may have only {@code java.base}
 * and {@code java.instrument}.
 */
public final class FlightRecorderExport {
    private final EventList defaultEvents;
    private final Map<String, ThreadCountersType> threadTypes = new HashMap<>();
    private final Map<String, MethodCountersType> methodTypes = new HashMap<>();
    private final Map<SampledThread, Followed> followed = new IdentityHashMap<>();
    /** When the previous tick ran, or the export began. */
    private long previousTickNanos = System.nanoTime();

    private boolean recording;

    public FlightRecorderExport(EventList defaultEvents) {
        this.defaultEvents = defaultEvents;
    }

    /** Whether a recording wants the events now; on the sampler, once per tick, before anything else here. */
    public boolean recording() {
        if (FlightRecorder.isInitialized() && threadType(defaultEvents).isEnabled()) {
            return true;
        }
        // the next recording starts afresh
        followed.clear();
        recording = false;
        previousTickNanos = System.nanoTime();
        return false;
    }

    /** A {@code @Counted} method's summary, as the recording just got it. */
    public void method(EventList events, MethodRecord summary) {
        MethodCountersType type = methodTypes.computeIfAbsent(key(events), k -> MethodCountersType.of(events));
        if (type.isEnabled()) {
            type.commit(summary);
        }
    }

    /** The threads as this tick read them, those that go on and those it finalised; {@link #recording()} said yes. */
    public void threads(List<? extends SampledThread> live, List<? extends SampledThread> finished) {
        long now = System.nanoTime();
        boolean began = !recording;
        for (SampledThread thread : live) {
            follow(thread, false, began, now);
        }
        for (SampledThread thread : finished) {
            follow(thread, true, began, now);
        }
        recording = true;
        previousTickNanos = now;
    }

    private void follow(SampledThread thread, boolean ended, boolean began, long now) {
        if (!thread.isCounted()) {
            return;
        }
        Followed f = followed.get(thread);
        if (f == null) {
            f = new Followed(thread.counts().size());
            followed.put(thread, f);
            if (began && thread.enrolledNanos() <= previousTickNanos) {
                // counted before the recording began: its events start here
                f.since(thread.counts(), now);
                return;
            }
            f.sinceNanos = thread.enrolledNanos();
        }
        CounterSnapshot.delta(thread.counts(), f.previous, f.delta);
        threadType(thread.events()).commit(thread, f.delta, now - f.sinceNanos, ended);
        if (ended) {
            followed.remove(thread);
        } else {
            f.since(thread.counts(), now);
        }
    }

    private ThreadCountersType threadType(EventList events) {
        return threadTypes.computeIfAbsent(key(events), k -> ThreadCountersType.of(events));
    }

    /** Lists with the same events and metrics make the same type. */
    private static String key(EventList events) {
        return events.events().stream().map(EventSpec::name).collect(Collectors.joining(",")) + ";"
                + events.metrics().stream().map(BoundMetric::name).collect(Collectors.joining(","));
    }

    /** A thread's counts when it last had an event, and since when. */
    private static final class Followed {
        final CounterSnapshot previous;
        final CounterSnapshot delta;
        long sinceNanos;

        Followed(int events) {
            previous = new CounterSnapshot(events);
            delta = new CounterSnapshot(events);
        }

        void since(CounterSnapshot counts, long nanos) {
            previous.copyFrom(counts);
            sinceNanos = nanos;
        }
    }
}
