package io.perfpin.apps;

import io.perfpin.annotations.Counted;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A table of trades, each a price and a side, summed two ways: the price of every buy, over an array of
 * small objects, and over the same records packed off-heap in a direct buffer and read through one
 * flyweight. An object takes 24 bytes with its 12-byte header and padding, plus a 4-byte reference in the
 * array: 28 bytes of memory per trade, where a packed record takes 16.
 *
 * <p>Trade i has price i and is a buy when i is even, so the buys sum to m(m-1) with m = (n+1)/2.
 *
 * <p>Usage: {@code java io.perfpin.apps.FlyweightVsObjects [--elements N] [--passes N] [--annotated]}.
 * Threads, one after the other: {@code flyweight-sum}, {@code object-sum}. {@code --annotated} runs
 * {@link CountedSummer}s, counting {@code cache}.
 *
 * <p>Result: {@code result flyweight elements=N passes=N flyweight-ns=X.XXX object-ns=X.XXX
 * flyweight-sum=N object-sum=N}, nanoseconds per element, and the sum of one pass.
 */
public final class FlyweightVsObjects {
    static final byte BUY = 'B';
    static final byte SELL = 'S';

    private FlyweightVsObjects() {}

    public record Options(int elements, int passes, boolean annotated) {
        public static Options from(Args args) {
            return new Options(
                    args.intValue("elements", 4_000_000, 1, 100_000_000),
                    args.intValue("passes", 10, 1, 10_000),
                    args.flag("annotated", "run the @Counted(\"cache\") summers"));
        }
    }

    /** One pass's sum of buy prices, and the time per element over all passes. */
    public record Sum(long buys, double nanosPerElement) {}

    public record Result(int elements, int passes, Sum flyweight, Sum objects) implements WorkloadResult {
        @Override
        public String line() {
            return new ResultLine("flyweight")
                    .add("elements", elements)
                    .add("passes", passes)
                    .add("flyweight-ns", flyweight.nanosPerElement())
                    .add("object-ns", objects.nanosPerElement())
                    .add("flyweight-sum", flyweight.buys())
                    .add("object-sum", objects.buys())
                    .toString();
        }
    }

    /** The closed form: the sum of the even numbers below {@code elements}. */
    public static long expectedSum(int elements) {
        long m = (elements + 1L) / 2;
        return m * (m - 1);
    }

    public static Result run(Options options) throws InterruptedException {
        Trades flyweight = new OffHeapTrades(options.elements());
        Trades objects = new ObjectTrades(options.elements());
        return new Result(
                options.elements(),
                options.passes(),
                sum("flyweight-sum", flyweight, options),
                sum("object-sum", objects, options));
    }

    public static void main(String[] args) {
        Launcher.main(FlyweightVsObjects.class, args, Options::from, FlyweightVsObjects::run);
    }

    private static Sum sum(String thread, Trades trades, Options options) throws InterruptedException {
        // One pass here first, so that the timed passes run compiled code.
        trades.buyTotal();
        Summer summer = options.annotated()
                ? new CountedSummer(trades, options.passes())
                : new Summer(trades, options.passes());
        Crew.run(thread, summer);
        return new Sum(summer.buys, (double) summer.nanos / ((long) options.elements() * options.passes()));
    }

    /** A table of trades: trade i has price i, and is a buy when i is even. */
    interface Trades {
        /** The sum of the prices of the buys. */
        long buyTotal();
    }

    /** A trade on the heap. */
    record Trade(long price, byte side) {}

    static final class ObjectTrades implements Trades {
        private final Trade[] trades;

        ObjectTrades(int elements) {
            trades = new Trade[elements];
            for (int i = 0; i < elements; i++) {
                trades[i] = new Trade(i, i % 2 == 0 ? BUY : SELL);
            }
        }

        @Override
        public long buyTotal() {
            long total = 0;
            for (Trade trade : trades) {
                if (trade.side() == BUY) {
                    total += trade.price();
                }
            }
            return total;
        }
    }

    /**
     * A view of one packed trade record, moved from record to record instead of allocating one object
     * per trade: price at 0, side at 8, 16 bytes per record so that every price is 8-byte aligned.
     */
    static final class TradeFlyweight {
        static final int SIZE = 16;
        private static final int PRICE = 0;
        private static final int SIDE = 8;

        private final ByteBuffer memory;
        private int base;

        TradeFlyweight(ByteBuffer memory) {
            this.memory = memory;
        }

        TradeFlyweight at(int index) {
            base = index * SIZE;
            return this;
        }

        long price() {
            return memory.getLong(base + PRICE);
        }

        byte side() {
            return memory.get(base + SIDE);
        }

        void set(long price, byte side) {
            memory.putLong(base + PRICE, price);
            memory.put(base + SIDE, side);
        }
    }

    static final class OffHeapTrades implements Trades {
        private final int elements;
        private final TradeFlyweight trade;

        OffHeapTrades(int elements) {
            this.elements = elements;
            // Native order: the reads are plain loads, with no byte swapping.
            trade = new TradeFlyweight(ByteBuffer.allocateDirect(Math.multiplyExact(elements, TradeFlyweight.SIZE))
                    .order(ByteOrder.nativeOrder()));
            for (int i = 0; i < elements; i++) {
                trade.at(i).set(i, i % 2 == 0 ? BUY : SELL);
            }
        }

        @Override
        public long buyTotal() {
            long total = 0;
            for (int i = 0; i < elements; i++) {
                if (trade.at(i).side() == BUY) {
                    total += trade.price();
                }
            }
            return total;
        }
    }

    /** Sums the buys {@code passes} times, timing itself; keeps one pass's sum. */
    static class Summer implements Runnable {
        private final Trades trades;
        private final int passes;
        long buys;
        long nanos;

        Summer(Trades trades, int passes) {
            this.trades = trades;
            this.passes = passes;
        }

        @Override
        public void run() {
            long start = System.nanoTime();
            for (int pass = 0; pass < passes; pass++) {
                buys = trades.buyTotal();
            }
            nanos = System.nanoTime() - start;
        }
    }

    /** A summer counted for cache misses when the perfpin agent runs. */
    @Counted("cache")
    static final class CountedSummer extends Summer {
        CountedSummer(Trades trades, int passes) {
            super(trades, passes);
        }

        @Override
        public void run() {
            super.run();
        }
    }
}
