package io.perfpin.cpu;

/** The kind of core a CPU belongs to on hybrid processors (Intel P-cores and E-cores). */
public enum CoreType {
    /** A big core (Intel P-core). */
    PERFORMANCE,
    /** A small core (Intel E-core, "atom"). */
    EFFICIENCY,
    /** The machine has one kind of core. */
    UNIFORM
}
