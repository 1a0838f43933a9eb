package io.perfpin.agent.impl;

import io.perfpin.agent.impl.jfr.FlightRecorderExport;
import io.perfpin.event.EventList;
import io.perfpin.registry.SampledThread;
import io.perfpin.registry.ThreadRegistry;
import io.perfpin.report.MethodRecord;
import io.perfpin.report.RunRecord;
import io.perfpin.stats.AgentNotice;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The agent's share of each sampler tick, after the registry has published the threads: the recording's run record
 * once, the {@code @Counted} methods' summaries, and JFR events while a recording wants them.
 */
final class AgentTick implements ThreadRegistry.TickListener {
    private final MethodCounting methods;
    /** When the agent started, for the run record. */
    private final long startMillis;
    /** Null without a recording (no out= option): no run record is made then. */
    private final String agentOptions;
    /** The events selected, in --events order, as the run record names them. */
    private final List<String> events;
    /** Null where the runtime has no JFR, or once it failed. */
    private FlightRecorderExport flightRecorder;

    private boolean runRecorded;
    /** Whether a JFR recording wants this tick's events: asked once a tick, as the threads are read. */
    private boolean toFlightRecorder;

    AgentTick(MethodCounting methods, EventList events, long startMillis, String agentOptions, boolean recorded) {
        this.methods = methods;
        this.startMillis = startMillis;
        this.agentOptions = recorded ? agentOptions : null;
        this.events = events.names();
        this.flightRecorder = hasFlightRecorder() ? new FlightRecorderExport(events) : null;
    }

    /** Checked here, so that a runtime without the module never loads a class that names its types. */
    private static boolean hasFlightRecorder() {
        return ModuleLayer.boot().findModule("jdk.jfr").isPresent();
    }

    @Override
    public void threadsRead(List<? extends SampledThread> live, List<? extends SampledThread> finished) {
        toFlightRecorder = flightRecorderWants();
        if (toFlightRecorder) {
            flightRecorder(jfr -> {
                jfr.threads(live, finished);
                return true;
            });
        }
    }

    @Override
    public void afterTick(long epochMillis, boolean finalPass, Consumer<String> record) {
        if (!runRecorded && agentOptions != null) {
            // made here, off the main thread, where reading the machine's files was premain's work
            record.accept(RunRecord.ofThisJvm(startMillis, agentOptions, events).toJson());
            runRecorded = true;
        }
        methods.publish(epochMillis, finalPass, new Summaries(record));
    }

    /**
     * Each method's summary to the recording, then to JFR where a recording wants it. A class rather than a lambda:
     * linking one cost the sampler about a millisecond of CPU in every JVM, methods counted or not.
     */
    private final class Summaries implements BiConsumer<EventList, MethodRecord> {
        private final Consumer<String> record;

        Summaries(Consumer<String> record) {
            this.record = record;
        }

        @Override
        public void accept(EventList methodEvents, MethodRecord summary) {
            record.accept(summary.toJson());
            if (toFlightRecorder) {
                flightRecorder(jfr -> {
                    jfr.method(methodEvents, summary);
                    return true;
                });
            }
        }
    }

    /** The run record and method summaries go to the recording, which the registry asks about itself; then JFR. */
    @Override
    public boolean wantsLastTick() {
        return flightRecorderWants();
    }

    /** Whether a JFR recording wants the events now; no lambda, since a short main's exit asks it. */
    private boolean flightRecorderWants() {
        FlightRecorderExport jfr = flightRecorder;
        if (jfr == null) {
            return false;
        }
        try {
            return jfr.recording();
        } catch (RuntimeException | LinkageError e) {
            jfrFailed(e);
            return false;
        }
    }

    /**
     * Runs JFR work; if it fails, the JFR events stop, said once, and the rest of the tick (the recording, the stats
     * file) goes on.
     */
    private boolean flightRecorder(Predicate<FlightRecorderExport> work) {
        FlightRecorderExport jfr = flightRecorder;
        if (jfr == null) {
            return false;
        }
        try {
            return work.test(jfr);
        } catch (RuntimeException | LinkageError e) {
            jfrFailed(e);
            return false;
        }
    }

    private void jfrFailed(Throwable e) {
        flightRecorder = null;
        AgentLog.say(AgentNotice.failure("no more JFR events", e, "counting and recording go on"));
    }
}
