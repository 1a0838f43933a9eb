package io.perfpin.apps;

/** What a workload measured, printable as its result line (see {@link ResultLine}). */
public interface WorkloadResult {
    /** {@code result <workload> key=value ...}. */
    String line();
}
