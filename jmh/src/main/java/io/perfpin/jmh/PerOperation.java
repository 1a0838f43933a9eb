package io.perfpin.jmh;

import io.perfpin.event.BoundMetric;
import io.perfpin.event.EventList;
import io.perfpin.event.EventSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * An iteration's counts as JMH secondary results per operation, the way perfnorm normalises: each event summed over
 * the counted threads and divided by the operations JMH made in the iteration ({@code ·page-faults}, #/op;
 * {@code ·task-clock}, ns/op), then the ratios of the presets asked for ({@code ·ipc}, {@code ·cpi}, miss ratios)
 * where their events count, and with {@code perThread} each thread's share ({@code ·page-faults:worker-1}), which
 * add up to the total. An event that is not counted for every thread has no result: a sum of some threads'
 * counts would pass for all of them.
 */
final class PerOperation {
    private PerOperation() {}

    /**
     * @param operations   every operation the workers made in the iteration, JMH's synchronising ones included:
     *                     the counts cover all of them (IterationResultMetaData.getAllOps)
     * @param workerPrefix the start of the workers' names ({@code <benchmark>-jmh-}), left out of their labels
     */
    static List<PerOpResult> of(
            EventList events, List<ThreadCount> threads, long operations, String workerPrefix, boolean perThread) {
        List<PerOpResult> results = new ArrayList<>();
        if (threads.isEmpty() || operations <= 0) {
            return results;
        }
        List<EventSpec> specs = events.events();
        double[] sums = new double[specs.size()];
        for (int i = 0; i < specs.size(); i++) {
            sums[i] = sum(threads, i);
            if (!Double.isNaN(sums[i])) {
                results.add(new PerOpResult("·" + specs.get(i).name(), sums[i] / operations, unit(specs.get(i))));
            }
        }
        for (BoundMetric metric : events.metrics()) {
            // Ratios of counts only: JMH's score is already the rate in time.
            double value = metric.needsWallTime() ? Double.NaN : metric.evaluate(sums, Double.NaN);
            if (!Double.isNaN(value)) {
                results.add(new PerOpResult("·" + metric.name(), value, unit(metric.name())));
            }
        }
        if (perThread) {
            for (ThreadCount thread : threads) {
                String label = thread.name().startsWith(workerPrefix)
                        ? thread.name().substring(workerPrefix.length())
                        : thread.name();
                for (int i = 0; i < specs.size(); i++) {
                    if (!Double.isNaN(sums[i])) {
                        results.add(new PerOpResult(
                                "·" + specs.get(i).name() + ":" + label,
                                (double) thread.counts().value(i) / operations,
                                unit(specs.get(i))));
                    }
                }
            }
        }
        return results;
    }

    /** NaN when some thread has no count of the event. */
    private static double sum(List<ThreadCount> threads, int event) {
        double sum = 0;
        for (ThreadCount thread : threads) {
            if (!thread.counted(event)) {
                return Double.NaN;
            }
            sum += thread.counts().value(event);
        }
        return sum;
    }

    private static String unit(EventSpec event) {
        return event.name().equals("task-clock") ? "ns/op" : "#/op";
    }

    /** perfnorm's words for IPC and CPI; events per thousand instructions; plain fractions. */
    private static String unit(String metric) {
        return switch (metric) {
            case "ipc" -> "insns/clk";
            case "cpi" -> "clks/insn";
            default -> metric.endsWith("pki") ? "#/kinsn" : "ratio";
        };
    }
}
