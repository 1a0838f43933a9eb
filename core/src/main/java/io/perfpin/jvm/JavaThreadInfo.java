package io.perfpin.jvm;

/**
 * A Java thread as a HotSpot thread dump shows it.
 *
 * @param name    the thread's name, exactly (quotes, line breaks and characters beyond U+FFFF included)
 * @param javaId  its {@code Thread.getId()}, unique for the JVM's lifetime
 * @param tid     its Linux thread id, in the pid namespace of whoever captured the dump
 * @param daemon  whether it is a daemon thread
 * @param state   its {@code java.lang.Thread.State} line, or null where the dump shows none
 */
public record JavaThreadInfo(String name, long javaId, int tid, boolean daemon, Thread.State state) {}
