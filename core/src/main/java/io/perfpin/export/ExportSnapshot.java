package io.perfpin.export;

import java.util.List;

/**
 * What the exports publish, as of one tick of the sampler: every series with its totals and coverage per event,
 * and perfpin's own health. Immutable: a scrape or an export reads it on its own thread while the sampler builds
 * the next one.
 */
public final class ExportSnapshot {
    static final ExportSnapshot EMPTY = new ExportSnapshot(0, List.of(), List.of(), 0, 0, 0, 0, Double.NaN);

    private final long epochMillis;
    private final List<ExportedEvent> events;
    private final List<Series> series;
    private final int threadsEnrolled;
    private final int threadsNotCounted;
    private final long threadsFinished;
    private final long seriesDropped;
    private final double samplerSeconds;

    ExportSnapshot(
            long epochMillis,
            List<ExportedEvent> events,
            List<Series> series,
            int threadsEnrolled,
            int threadsNotCounted,
            long threadsFinished,
            long seriesDropped,
            double samplerSeconds) {
        this.epochMillis = epochMillis;
        this.events = List.copyOf(events);
        this.series = List.copyOf(series);
        this.threadsEnrolled = threadsEnrolled;
        this.threadsNotCounted = threadsNotCounted;
        this.threadsFinished = threadsFinished;
        this.seriesDropped = seriesDropped;
        this.samplerSeconds = samplerSeconds;
    }

    /**
     * One series: a group of threads ({@link #thread} null), or one thread with its own ({@link #thread} and
     * {@link #cpus} set). Its values index {@link ExportSnapshot#events()}; NaN where none of its threads counted
     * that event.
     */
    public static final class Series {
        private final String group;
        private final String thread;
        private final String cpus;
        private final double[] totals;
        private final double[] coverage;

        Series(String group, String thread, String cpus, double[] totals, double[] coverage) {
            this.group = group;
            this.thread = thread;
            this.cpus = cpus;
            this.totals = totals;
            this.coverage = coverage;
        }

        public String group() {
            return group;
        }

        /** Null for a group's series. */
        public String thread() {
            return thread;
        }

        /** Null for a group's series. */
        public String cpus() {
            return cpus;
        }

        /** The event's total in its exported unit (seconds for the clocks); NaN when not counted here. */
        public double total(int event) {
            return event < totals.length ? totals[event] : Double.NaN;
        }

        /**
         * Time counted over time enabled, over all the series' threads; NaN when not counted here, when the event
         * cannot be multiplexed, or while it is 1 (counted throughout).
         */
        public double coverage(int event) {
            return event < coverage.length ? coverage[event] : Double.NaN;
        }
    }

    /** When the sampler read what this holds. */
    public long epochMillis() {
        return epochMillis;
    }

    public List<ExportedEvent> events() {
        return events;
    }

    public List<Series> series() {
        return series;
    }

    /** Threads enrolled now, counted or not. */
    public int threadsEnrolled() {
        return threadsEnrolled;
    }

    /** Threads enrolled now that hold no counter, for want of file descriptors. */
    public int threadsNotCounted() {
        return threadsNotCounted;
    }

    /** Threads that ended (or left) since the export started. */
    public long threadsFinished() {
        return threadsFinished;
    }

    /**
     * Series the bounds left out since the export started: each time a thread pinned or named by
     * {@code export-threads} was counted in its group's series instead of its own, or a thread in
     * {@link ExportedThreads#OTHER_GROUP} instead of its group's.
     */
    public long seriesDropped() {
        return seriesDropped;
    }

    /** The CPU time perfpin's sampler has taken since the export started (task-clock); NaN when not counted. */
    public double samplerSeconds() {
        return samplerSeconds;
    }
}
