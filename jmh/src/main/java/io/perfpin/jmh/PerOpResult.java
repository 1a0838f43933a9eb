package io.perfpin.jmh;

import java.util.Collection;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.Aggregator;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ResultRole;
import org.openjdk.jmh.util.ListStatistics;
import org.openjdk.jmh.util.Statistics;

/**
 * One of perfpin's secondary results, averaged over iterations and forks as perfnorm's are. Unlike JMH's
 * {@code ScalarResult} it has no zero result: an iteration perfpin did not count (its workers started during it)
 * adds no value rather than a 0 to the average.
 */
final class PerOpResult extends Result<PerOpResult> {
    private static final long serialVersionUID = 1L;

    PerOpResult(String label, double value, String unit) {
        this(label, of(value), unit);
    }

    private PerOpResult(String label, Statistics statistics, String unit) {
        super(ResultRole.SECONDARY, label, statistics, unit, AggregationPolicy.AVG);
    }

    @Override
    protected Aggregator<PerOpResult> getThreadAggregator() {
        return PerOpResult::average;
    }

    @Override
    protected Aggregator<PerOpResult> getIterationAggregator() {
        return PerOpResult::average;
    }

    private static PerOpResult average(Collection<PerOpResult> results) {
        ListStatistics statistics = new ListStatistics();
        PerOpResult first = results.iterator().next();
        for (PerOpResult result : results) {
            statistics.addValue(result.getScore());
        }
        return new PerOpResult(first.getLabel(), statistics, first.getScoreUnit());
    }
}
