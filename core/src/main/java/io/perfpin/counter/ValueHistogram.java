package io.perfpin.counter;

/**
 * Counts of non-negative values in log-linear buckets, as HdrHistogram does it with fewer digits: values
 * below 64 are exact, larger ones fall into one of 32 buckets per power of two, so a percentile is within
 * 1/32 (about 3%) of the recorded value. Recording is a few shifts and one array increment, without
 * allocation; one thread records, another may merge. Used by the agent for a method's calls and by the stats
 * file for a virtual-thread group's members.
 *
 * <p>There is no separate count of values: a reader racing the recording thread may see some buckets' new
 * counts and not others, and a total kept beside them could then exceed what the buckets hold, so a
 * percentile would run past the last bucket. Every total is the buckets' own sum, and a walk that still
 * falls short ends at the highest bucket it saw filled.
 */
public final class ValueHistogram {
    private static final int SUB_BITS = 5;
    private static final int SUB_BUCKETS = 1 << SUB_BITS;
    /** Values below 2 * SUB_BUCKETS are their own bucket. */
    private static final int EXACT = 2 * SUB_BUCKETS;

    private static final int BUCKETS = EXACT + (63 - SUB_BITS) * SUB_BUCKETS;

    private final long[] counts = new long[BUCKETS];

    public void record(long value) {
        counts[bucket(Math.max(0, value))]++;
    }

    public void addTo(ValueHistogram sum) {
        for (int i = 0; i < BUCKETS; i++) {
            sum.counts[i] += counts[i];
        }
    }

    public long total() {
        long total = 0;
        for (long c : counts) {
            total += c;
        }
        return total;
    }

    /**
     * The value at {@code quantile} (0.5 for the median): the smallest bucket's lower bound below which at
     * least that fraction of the values lies; 0 when nothing was recorded.
     */
    public long valueAt(double quantile) {
        long total = total();
        if (total == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(quantile * total));
        long seen = 0;
        int last = 0;
        for (int i = 0; i < BUCKETS; i++) {
            if (counts[i] != 0) {
                seen += counts[i];
                last = i;
                if (seen >= rank) {
                    return lowerBound(i);
                }
            }
        }
        return lowerBound(last); // the recording thread moved a count between the two passes
    }

    static int bucket(long value) {
        if (value < EXACT) {
            return (int) value;
        }
        int exponent = 63 - Long.numberOfLeadingZeros(value); // >= SUB_BITS + 1
        int sub = (int) (value >>> (exponent - SUB_BITS)) & (SUB_BUCKETS - 1);
        return EXACT + (exponent - SUB_BITS - 1) * SUB_BUCKETS + sub;
    }

    static long lowerBound(int bucket) {
        if (bucket < EXACT) {
            return bucket;
        }
        int exponent = (bucket - EXACT) / SUB_BUCKETS + SUB_BITS + 1;
        long sub = (bucket - EXACT) % SUB_BUCKETS;
        return (1L << exponent) | (sub << (exponent - SUB_BITS));
    }
}
