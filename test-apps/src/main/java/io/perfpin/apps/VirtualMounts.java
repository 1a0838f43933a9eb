package io.perfpin.apps;

import java.util.ArrayList;
import java.util.List;

/**
 * Virtual threads that do nothing but yield: each {@code Thread.yield()} of a virtual thread unmounts it from its
 * carrier and mounts it again, so the time per yield is what a mount and unmount pair costs, with or without a tool
 * that follows them. {@code --threads} virtual threads {@code vm-0}, {@code vm-1}, ... yield {@code --yields} times
 * each. JDK 21 and later; this class is compiled for 17 and reaches the virtual-thread API by reflection.
 *
 * <p>Usage: {@code java io.perfpin.apps.VirtualMounts [--threads N] [--yields N]}.
 *
 * <p>Result: {@code result vmounts threads=N yields=N ms=X.XXX}: every thread's yields in all, and the wall time from
 * the first start to the last join.
 */
public final class VirtualMounts {
    private VirtualMounts() {}

    public record Options(int threads, int yields) {
        public static Options from(Args args) {
            return new Options(
                    args.intValue("threads", 100, 1, 1_000_000), args.intValue("yields", 10_000, 1, 100_000_000));
        }
    }

    public record Result(int threads, long yields, long nanos) implements WorkloadResult {
        @Override
        public String line() {
            return new ResultLine("vmounts")
                    .add("threads", threads)
                    .add("yields", yields)
                    .add("ms", nanos / 1e6)
                    .toString();
        }
    }

    public static Result run(Options options) throws InterruptedException {
        Runnable work = () -> {
            for (int i = 0; i < options.yields(); i++) {
                Thread.yield();
            }
        };
        long start = System.nanoTime();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < options.threads(); i++) {
            threads.add(startVirtual("vm-" + i, work));
        }
        for (Thread t : threads) {
            t.join();
        }
        return new Result(options.threads(), (long) options.threads() * options.yields(), System.nanoTime() - start);
    }

    private static Thread startVirtual(String name, Runnable work) {
        try {
            Class<?> builderType = Class.forName("java.lang.Thread$Builder");
            Object builder = builderType
                    .getMethod("name", String.class)
                    .invoke(Thread.class.getMethod("ofVirtual").invoke(null), name);
            return (Thread) builderType.getMethod("start", Runnable.class).invoke(builder, work);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(
                    "virtual threads need JDK 21 or later; this is "
                            + Runtime.version().feature(),
                    e);
        }
    }

    public static void main(String[] args) {
        Launcher.main(VirtualMounts.class, args, Options::from, VirtualMounts::run);
    }
}
