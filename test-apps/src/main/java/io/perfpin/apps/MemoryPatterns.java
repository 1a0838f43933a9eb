package io.perfpin.apps;

import io.perfpin.annotations.Counted;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * Memory access patterns: one long[] read three ways, each word once per pass. {@code linear} walks it in
 * order, which the prefetchers follow. {@code page} walks each 4 KiB page in a scattered order before
 * moving to the next page: the page stays in the TLB and its lines in cache. {@code heap} jumps about 4 MiB
 * at every step across the whole array: nearly every read misses the caches and the TLB.
 *
 * <p>The scattered orders step by a prime modulo the page or the array, which visits every word once:
 * the sum of a pass is the sum of the array whatever the pattern.
 *
 * <p>Usage: {@code java io.perfpin.apps.MemoryPatterns [--mib N] [--passes N] [--annotated]}. Threads, one
 * after another: {@code linear-walk}, {@code page-walk}, {@code heap-walk}. {@code --annotated} runs
 * {@link CountedWalker}s, counting {@code cache} and {@code tlb}.
 *
 * <p>Result: {@code result memorypatterns mib=N accesses=N linear-ns=X.XXX page-ns=X.XXX heap-ns=X.XXX},
 * accesses per pattern and nanoseconds per access.
 */
public final class MemoryPatterns {
    static final int WORDS_PER_PAGE = PageToucher.PAGE_SIZE / Long.BYTES;
    private static final int WORDS_PER_MIB = (1 << 20) / Long.BYTES;
    /** A prime: coprime with every array length here, and far beyond what a prefetcher follows. */
    private static final int PRIME_STRIDE = 514_229;
    /** Enough words to compile the walk before any of it is timed. */
    private static final int WARM_UP_WORDS = 1 << 17;

    private MemoryPatterns() {}

    public enum Pattern {
        LINEAR,
        PAGE,
        HEAP;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The words the pattern scatters its reads over: one page, or the whole array. */
        int window(int words) {
            return this == PAGE ? WORDS_PER_PAGE : words;
        }

        int step(int window) {
            return this == LINEAR ? 1 : PRIME_STRIDE % window;
        }
    }

    public record Options(int mib, int passes, boolean annotated) {
        public static Options from(Args args) {
            return new Options(
                    args.intValue("mib", 256, 1, 1024),
                    args.intValue("passes", 1, 1, 1000),
                    args.flag("annotated", "run the @Counted({\"cache\",\"tlb\"}) walkers"));
        }

        int words() {
            return mib * WORDS_PER_MIB;
        }
    }

    /** One pattern's walks: words read, the sum of what they read, and the time they took. */
    public record Walk(long accesses, long sum, long nanos) {
        public double nanosPerAccess() {
            return (double) nanos / accesses;
        }
    }

    public record Result(int mib, Map<Pattern, Walk> walks) implements WorkloadResult {
        @Override
        public String line() {
            ResultLine line = new ResultLine("memorypatterns")
                    .add("mib", mib)
                    .add("accesses", walks.get(Pattern.LINEAR).accesses());
            walks.forEach((pattern, walk) -> line.add(pattern.label() + "-ns", walk.nanosPerAccess()));
            return line.toString();
        }
    }

    public static Result run(Options options) throws InterruptedException {
        long[] memory = new long[options.words()];
        for (int i = 0; i < memory.length; i++) {
            memory[i] = i;
        }
        for (Pattern pattern : Pattern.values()) {
            walk(memory, Math.min(WARM_UP_WORDS, memory.length), pattern);
        }
        Map<Pattern, Walk> walks = new EnumMap<>(Pattern.class);
        for (Pattern pattern : Pattern.values()) {
            Walker walker = options.annotated()
                    ? new CountedWalker(memory, pattern, options.passes())
                    : new Walker(memory, pattern, options.passes());
            Crew.run(pattern.label() + "-walk", walker);
            walks.put(pattern, new Walk((long) memory.length * options.passes(), walker.sum, walker.nanos));
        }
        return new Result(options.mib(), walks);
    }

    public static void main(String[] args) {
        Launcher.main(MemoryPatterns.class, args, Options::from, MemoryPatterns::run);
    }

    /**
     * Reads each of the first {@code words} words of {@code memory} once, in the pattern's order, a page's
     * worth of reads at a time; returns their sum. {@code words} is a multiple of a page.
     */
    static long walk(long[] memory, int words, Pattern pattern) {
        int window = pattern.window(words);
        int step = pattern.step(window);
        int offset = window - step;
        long sum = 0;
        for (int page = 0; page < words; page += WORDS_PER_PAGE) {
            int base = pattern == Pattern.PAGE ? page : 0;
            for (int i = 0; i < WORDS_PER_PAGE; i++) {
                offset += step;
                if (offset >= window) {
                    offset -= window;
                }
                sum += memory[base + offset];
            }
        }
        return sum;
    }

    /** Walks the whole array in one pattern, {@code passes} times, timing itself. */
    static class Walker implements Runnable {
        private final long[] memory;
        private final Pattern pattern;
        private final int passes;
        long sum;
        long nanos;

        Walker(long[] memory, Pattern pattern, int passes) {
            this.memory = memory;
            this.pattern = pattern;
            this.passes = passes;
        }

        @Override
        public void run() {
            long start = System.nanoTime();
            for (int pass = 0; pass < passes; pass++) {
                sum += walk(memory, memory.length, pattern);
            }
            nanos = System.nanoTime() - start;
        }
    }

    /** A walker counted for cache and TLB misses when the perfpin agent runs. */
    @Counted({"cache", "tlb"})
    static final class CountedWalker extends Walker {
        CountedWalker(long[] memory, Pattern pattern, int passes) {
            super(memory, pattern, passes);
        }

        @Override
        public void run() {
            super.run();
        }
    }
}
