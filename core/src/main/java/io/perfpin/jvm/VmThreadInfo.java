package io.perfpin.jvm;

/**
 * A thread of the JVM itself that has no {@code java.lang.Thread} ("VM Thread", "GC Thread#0", "G1 Service",
 * ...): it runs no Java code, but it runs on a CPU.
 *
 * @param name its name
 * @param tid  its Linux thread id, in the pid namespace of whoever captured the dump
 */
public record VmThreadInfo(String name, int tid) {}
