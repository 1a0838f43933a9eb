package io.perfpin.agent.bootstrap;

/**
 * What the code woven into application and JDK classes reports, implemented by the agent. Each method may be
 * called on any application thread, concurrently.
 */
public interface ThreadEvents {
    /**
     * A thread entered its {@code run()}.
     *
     * @return true when this call enrolled it, so the matching {@link #runEnded} must be reported
     */
    boolean runStarting(Thread thread);

    /**
     * How perfpin's C library deals with a thread that starts, before its {@code run()}: one of
     * {@code io.perfpin.nativeio.NativeEnrolment}'s decisions, with its {@code CACHEABLE} bit when the answer holds
     * for every thread whose name differs from this one's only in the digits it ends with.
     */
    int decide(Thread thread);

    void runEnded(Thread thread);

    /**
     * A {@code @Pinned}/{@code @Counted} task's {@code run()} or {@code call()} began on the current thread.
     *
     * @param placement the {@code @Pinned} value, empty when absent
     * @param events    the {@code @Counted} values joined by commas, empty for the agent's events
     * @return a token for {@link #taskEnded}; null when this call enrolled nothing
     */
    Object taskStarting(String placement, String events);

    void taskEnded(Object token);

    /**
     * A {@code @Counted} method was entered on the current thread.
     *
     * @return a token for {@link #methodExited}; null when the method is not measured on this call
     */
    Object methodEntering(int method);

    void methodExited(int method, Object token);
}
