package io.perfpin.agent.impl;

import io.perfpin.agent.impl.jfr.FlightRecorderExport;
import io.perfpin.event.EventList;
import io.perfpin.registry.ThreadRegistry;
import io.perfpin.report.RunRecord;

import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The agent's share of each sampler tick, after the registry has published the threads: the recording's run record
 * once, the {@code @Counted} methods' summaries, and JFR events while a recording wants them.
 */
final class AgentTick implements ThreadRegistry.TickListener {
    private final ThreadRegistry registry;
    private final MethodCounting methods;
    private final RunRecord run;
    /** Null where the runtime has no JFR, or once it failed. */
    private FlightRecorderExport flightRecorder;
    private boolean runRecorded;

    AgentTick(ThreadRegistry registry, MethodCounting methods, EventList events, RunRecord run) {
        this.registry = registry;
        this.methods = methods;
        this.run = run;
        this.flightRecorder = hasFlightRecorder() ? new FlightRecorderExport(events) : null;
    }

    /** Checked here, so that a runtime without the module never loads a class that names its types. */
    private static boolean hasFlightRecorder() {
        return ModuleLayer.boot().findModule("jdk.jfr").isPresent();
    }

    @Override
    public void afterTick(long epochMillis, boolean finalPass, Consumer<String> record) {
        if (!runRecorded) {
            record.accept(run.toJson());
            runRecorded = true;
        }
        boolean toFlightRecorder = flightRecorder != null && flightRecorder(FlightRecorderExport::recording);
        methods.publish(epochMillis, finalPass, (events, summary) -> {
            record.accept(summary.toJson());
            if (toFlightRecorder) {
                flightRecorder(jfr -> {
                    jfr.method(events, summary);
                    return true;
                });
            }
        });
        if (toFlightRecorder) {
            flightRecorder(jfr -> {
                jfr.threads(registry);
                return true;
            });
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
            flightRecorder = null;
            AgentLog.refused("no more JFR events: " + e + "; counting and recording go on");
            return false;
        }
    }
}
