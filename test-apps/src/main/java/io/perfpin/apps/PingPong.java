package io.perfpin.apps;

import io.perfpin.annotations.Counted;
import io.perfpin.annotations.Pinned;
import java.util.Arrays;

/**
 * Inter-thread latency: thread {@code ping} writes a volatile field, thread {@code pong} busy-spins until it
 * sees the value and answers in a second volatile field, on which {@code ping} busy-spins in turn. A round
 * trip is two transfers of a cache line between the CPUs the two threads run on, plus the fences that the
 * volatile writes cost; {@code ping} times each one. Both threads spin, so they need a CPU each.
 *
 * <p>Usage: {@code java io.perfpin.apps.PingPong [--round-trips N] [--warmup N] [--annotated]}.
 * {@code --warmup} round trips run first and are not timed. {@code --annotated} runs {@link PinnedPing} and
 * {@link PinnedPong}, which ask the perfpin agent for a whole core each and count {@code ipc} and
 * {@code sched}.
 *
 * <p>Result: {@code result pingpong round-trips=N median-ns=N p99-ns=N max-ns=N}.
 */
public final class PingPong {
    private PingPong() {}

    public record Options(int roundTrips, int warmup, boolean annotated) {
        public static Options from(Args args) {
            return new Options(
                    args.intValue("round-trips", 1_000_000, 1, 100_000_000),
                    args.intValue("warmup", 50_000, 0, 100_000_000),
                    args.flag("annotated", "run the @Pinned(\"core\") @Counted({\"ipc\",\"sched\"}) threads"));
        }
    }

    /** Round trips timed, and their median, 99th percentile and longest, in nanoseconds. */
    public record Result(int roundTrips, long medianNanos, long p99Nanos, long maxNanos) implements WorkloadResult {
        @Override
        public String line() {
            return new ResultLine("pingpong")
                    .add("round-trips", roundTrips)
                    .add("median-ns", medianNanos)
                    .add("p99-ns", p99Nanos)
                    .add("max-ns", maxNanos)
                    .toString();
        }
    }

    public static Result run(Options options) throws InterruptedException {
        Mailbox mailbox = new Mailbox();
        long[] samples = new long[options.roundTrips()];
        int total = options.warmup() + options.roundTrips();
        Ping ping = options.annotated()
                ? new PinnedPing(mailbox, options.warmup(), samples)
                : new Ping(mailbox, options.warmup(), samples);
        Pong pong = options.annotated() ? new PinnedPong(mailbox, total) : new Pong(mailbox, total);
        Crew crew = new Crew();
        crew.start("pong", pong);
        crew.start("ping", ping);
        crew.joinAll();
        Arrays.sort(samples);
        return new Result(ping.timed, percentile(samples, 50), percentile(samples, 99), samples[samples.length - 1]);
    }

    /** The nearest-rank percentile of sorted samples. */
    static long percentile(long[] sorted, int percent) {
        int rank = (int) Math.ceil(percent / 100.0 * sorted.length);
        return sorted[Math.max(rank, 1) - 1];
    }

    public static void main(String[] args) {
        Launcher.main(PingPong.class, args, Options::from, PingPong::run);
    }

    /** The two fields: {@code ping} is written only by thread ping, {@code pong} only by thread pong. */
    static final class Mailbox {
        volatile int ping = -1;
        volatile int pong = -1;
    }

    /** Sends each number and waits for its echo, timing the round trip once the warm-up is over. */
    static class Ping implements Runnable {
        private final Mailbox mailbox;
        private final int warmup;
        private final long[] samples;
        int timed;

        Ping(Mailbox mailbox, int warmup, long[] samples) {
            this.mailbox = mailbox;
            this.warmup = warmup;
            this.samples = samples;
        }

        @Override
        public void run() {
            int total = warmup + samples.length;
            for (int i = 0; i < total; i++) {
                long start = System.nanoTime();
                mailbox.ping = i;
                while (mailbox.pong != i) {
                    // Spinning, not parking: a wake-up would cost more than the transfer being measured.
                }
                if (i >= warmup) {
                    samples[timed++] = System.nanoTime() - start;
                }
            }
        }
    }

    /** Echoes each number ping sends. */
    static class Pong implements Runnable {
        private final Mailbox mailbox;
        private final int total;

        Pong(Mailbox mailbox, int total) {
            this.mailbox = mailbox;
            this.total = total;
        }

        @Override
        public void run() {
            for (int i = 0; i < total; i++) {
                while (mailbox.ping != i) {
                    // Spinning, as ping does.
                }
                mailbox.pong = i;
            }
        }
    }

    /** Ping on a whole core of its own, counted, when the perfpin agent runs. */
    @Pinned("core")
    @Counted({"ipc", "sched"})
    static final class PinnedPing extends Ping {
        PinnedPing(Mailbox mailbox, int warmup, long[] samples) {
            super(mailbox, warmup, samples);
        }

        @Override
        public void run() {
            super.run();
        }
    }

    /** Pong on a whole core of its own, counted, when the perfpin agent runs. */
    @Pinned("core")
    @Counted({"ipc", "sched"})
    static final class PinnedPong extends Pong {
        PinnedPong(Mailbox mailbox, int total) {
            super(mailbox, total);
        }

        @Override
        public void run() {
            super.run();
        }
    }
}
