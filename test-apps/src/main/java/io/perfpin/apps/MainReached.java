package io.perfpin.apps;

/**
 * Says when its {@code main()} began and exits: the trivial program of the start-up benchmark. It prints
 * {@code result main-reached main-nanos=N}, {@code System.nanoTime()} as {@code main()} begins, which on Linux reads
 * {@code CLOCK_MONOTONIC}, one clock for every process: that less the parent's own reading just before it started this
 * JVM is how long the JVM, and any agent's premain, took to reach {@code main()}.
 *
 * <p>Usage: {@code java io.perfpin.apps.MainReached}.
 */
public final class MainReached {
    private MainReached() {}

    public static void main(String[] args) {
        long reached = System.nanoTime();
        // print and println rather than a concatenation, whose first use links a call site: the JVM's start is measured
        System.out.print("result main-reached main-nanos=");
        System.out.println(reached);
    }
}
