package io.perfpin.jmh;

import io.perfpin.event.BoundMetric;
import io.perfpin.event.EventList;
import io.perfpin.event.EventSpec;
import io.perfpin.nativeio.PmuModel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * An iteration's counts as JMH secondary results per operation, the way perfnorm normalises: each event summed over
 * the counted threads and divided by the operations JMH made in the iteration ({@code ·page-faults}, #/op;
 * {@code ·task-clock}, ns/op), then the ratios of the presets asked for ({@code ·ipc}, {@code ·cpi}, miss ratios)
 * where their events count, and with {@code perThread} each thread's share ({@code ·page-faults:worker-1}), which
 * add up to the total: a name that several counted threads share ({@code threads=all}: the JVM's compiler and GC
 * threads, by the kernel's name cut to 15 characters) is told apart by each one's TID ({@code C2 CompilerThre
 * (tid 4242)}), since JMH would average results of one label, not add them; not in brackets or after a comma, which
 * JMH's JSON writer breaks lines at, inside strings too. An event that is not counted for every thread has no
 * result: a sum of some threads' counts would pass for all of them. Where a simulated PMU (tests only) made the
 * hardware counts, each result that comes of one says so in its unit ({@code #/op (simulated skylake PMU)}), which
 * JMH prints beside it and writes into its result files.
 */
final class PerOperation {
    private PerOperation() {}

    /**
     * @param operations   every operation the workers made in the iteration, JMH's synchronising ones included:
     *                     the counts cover all of them (IterationResultMetaData.getAllOps)
     * @param workerPrefix the start of the workers' names ({@code <benchmark>-jmh-}), left out of their labels
     * @param simulatedPmu the simulated PMU that made the hardware counts ({@code simulated skylake}); null: the
     *                     kernel's
     */
    static List<PerOpResult> of(
            EventList events,
            List<ThreadCount> threads,
            long operations,
            String workerPrefix,
            boolean perThread,
            String simulatedPmu) {
        List<PerOpResult> results = new ArrayList<>();
        if (threads.isEmpty() || operations <= 0) {
            return results;
        }
        List<EventSpec> specs = events.events();
        String[] units = new String[specs.size()];
        double[] sums = new double[specs.size()];
        for (int i = 0; i < specs.size(); i++) {
            units[i] = labelled(
                    unit(specs.get(i)),
                    simulatedPmu,
                    PmuModel.simulates(specs.get(i).type()));
            sums[i] = sum(threads, i);
            if (!Double.isNaN(sums[i])) {
                results.add(new PerOpResult("·" + specs.get(i).name(), sums[i] / operations, units[i]));
            }
        }
        for (BoundMetric metric : events.metrics()) {
            // Ratios of counts only: JMH's score is already the rate in time.
            double value = metric.needsWallTime() ? Double.NaN : metric.evaluate(sums, Double.NaN);
            if (!Double.isNaN(value)) {
                boolean simulated = Arrays.stream(metric.inputIndices())
                        .anyMatch(i -> i >= 0 && PmuModel.simulates(specs.get(i).type()));
                results.add(new PerOpResult(
                        "·" + metric.name(), value, labelled(unit(metric.name()), simulatedPmu, simulated)));
            }
        }
        if (perThread) {
            Map<String, Long> named =
                    threads.stream().collect(Collectors.groupingBy(ThreadCount::name, Collectors.counting()));
            for (ThreadCount thread : threads) {
                String label = (thread.name().startsWith(workerPrefix)
                                ? thread.name().substring(workerPrefix.length())
                                : thread.name())
                        + (named.get(thread.name()) > 1 ? " (tid " + thread.tid() + ")" : "");
                for (int i = 0; i < specs.size(); i++) {
                    if (!Double.isNaN(sums[i])) {
                        results.add(new PerOpResult(
                                "·" + specs.get(i).name() + ":" + label,
                                (double) thread.counts().value(i) / operations,
                                units[i]));
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

    /** {@code unit}, with the simulated PMU's name where one made the figure. */
    private static String labelled(String unit, String simulatedPmu, boolean hardware) {
        return simulatedPmu != null && hardware ? unit + " (" + simulatedPmu + " PMU)" : unit;
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
