package io.perfpin.apps;

import io.perfpin.annotations.Counted;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * 4K aliasing: a loop adds a source block of longs into a target block, and the distance between the two
 * blocks varies. Intel cores check a load against older stores by the low 12 bits of the address, so a load
 * 4096 bytes (or a multiple) away from a recent store is held back as if it depended on it: the loop slows
 * down around offsets that are multiples of 4096. Other cores show a flat line.
 *
 * <p>Source and target are blocks of one long[], so the distance is exact: the target starts
 * {@code base + offset} bytes after the source, where the base is the smallest multiple of 4096 that keeps
 * the blocks apart. Modulo 4096, which is all the check sees, the distance is the offset. The start of the
 * target is a run-time value, so C2 does not vectorise the loop: every offset runs the same scalar code.
 *
 * <p>Usage: {@code java io.perfpin.apps.FourKAliasing [--elements N] [--max-offset N] [--step N] [--passes N]
 * [--annotated]}. One thread per offset, one after another: {@code alias-0}, {@code alias-64}, ...
 * {@code --annotated} runs {@link CountedAdder}s, counting {@code aliasing} and {@code ipc}, so perfpin
 * shows the alias events of each offset by its thread.
 *
 * <p>Result: {@code result aliasing elements=N passes=N slowest-offset=N ns-0=X.XXX ns-64=X.XXX ...},
 * nanoseconds per element added, per offset in bytes.
 */
public final class FourKAliasing {
    private static final int ALIAS_PERIOD = 4096;

    private FourKAliasing() {}

    public record Options(int elements, int maxOffset, int step, int passes, boolean annotated) {
        public static Options from(Args args) {
            return new Options(
                    args.intValue("elements", 256, 1, 1 << 20),
                    args.intValue("max-offset", 8192, 0, 1 << 20, Long.BYTES),
                    args.intValue("step", 64, Long.BYTES, 1 << 20, Long.BYTES),
                    args.intValue("passes", 20_000, 1, 10_000_000),
                    args.flag("annotated", "run the @Counted({\"aliasing\",\"ipc\"}) adders"));
        }

        /** 0, step, 2 step, ... up to max-offset. */
        public int[] offsets() {
            int[] offsets = new int[maxOffset / step + 1];
            Arrays.setAll(offsets, i -> i * step);
            return offsets;
        }
    }

    /** Nanoseconds per element added, by offset in bytes, in offset order. */
    public record Result(int elements, int passes, Map<Integer, Double> nanosPerElement) implements WorkloadResult {
        public int slowestOffset() {
            return nanosPerElement.entrySet().stream()
                    .max(Map.Entry.comparingByValue())
                    .orElseThrow()
                    .getKey();
        }

        @Override
        public String line() {
            ResultLine line = new ResultLine("aliasing")
                    .add("elements", elements)
                    .add("passes", passes)
                    .add("slowest-offset", slowestOffset());
            nanosPerElement.forEach((offset, nanos) -> line.add("ns-" + offset, nanos));
            return line.toString();
        }
    }

    public static Result run(Options options) throws InterruptedException {
        int elements = options.elements();
        int baseWords = (int) (ceilToPeriod((long) elements * Long.BYTES) / Long.BYTES);
        long[] memory = new long[baseWords + options.maxOffset() / Long.BYTES + elements];
        for (int i = 0; i < elements; i++) {
            memory[i] = i + 1;
        }
        // Compiled before the first offset is timed, so that offset 0 is not slow for that alone.
        add(memory, baseWords, elements, options.passes());
        Map<Integer, Double> nanosPerElement = new TreeMap<>();
        for (int offset : options.offsets()) {
            int target = baseWords + offset / Long.BYTES;
            Adder adder = options.annotated()
                    ? new CountedAdder(memory, target, elements, options.passes())
                    : new Adder(memory, target, elements, options.passes());
            Crew.run("alias-" + offset, adder);
            nanosPerElement.put(offset, (double) adder.nanos / ((long) elements * options.passes()));
        }
        return new Result(elements, options.passes(), nanosPerElement);
    }

    public static void main(String[] args) {
        Launcher.main(FourKAliasing.class, args, Options::from, FourKAliasing::run);
    }

    private static long ceilToPeriod(long bytes) {
        return (bytes + ALIAS_PERIOD - 1) / ALIAS_PERIOD * ALIAS_PERIOD;
    }

    /** Adds the source block, {@code memory[0..elements)}, into the block at {@code target}, {@code passes} times. */
    static void add(long[] memory, int target, int elements, int passes) {
        for (int pass = 0; pass < passes; pass++) {
            for (int i = 0; i < elements; i++) {
                memory[target + i] += memory[i];
            }
        }
    }

    /** Adds at one offset, timing itself. */
    static class Adder implements Runnable {
        private final long[] memory;
        private final int target;
        private final int elements;
        private final int passes;
        long nanos;

        Adder(long[] memory, int target, int elements, int passes) {
            this.memory = memory;
            this.target = target;
            this.elements = elements;
            this.passes = passes;
        }

        @Override
        public void run() {
            long start = System.nanoTime();
            add(memory, target, elements, passes);
            nanos = System.nanoTime() - start;
        }
    }

    /** An adder counted for 4K aliasing and IPC when the perfpin agent runs. */
    @Counted({"aliasing", "ipc"})
    static final class CountedAdder extends Adder {
        CountedAdder(long[] memory, int target, int elements, int passes) {
            super(memory, target, elements, passes);
        }

        @Override
        public void run() {
            super.run();
        }
    }
}
