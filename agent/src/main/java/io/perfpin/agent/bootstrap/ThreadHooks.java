package io.perfpin.agent.bootstrap;

/**
 * The calls woven into {@code Thread.run()}, annotated tasks and {@code @Counted} methods. It lives on the
 * bootstrap class path so that {@code java.lang.Thread} can see it, and forwards to the agent while one is
 * installed. Nothing thrown here reaches the application: the woven advice suppresses throwables too, and
 * this class swallows its own, since the agent reports its failures itself.
 */
public final class ThreadHooks {
    /** NativeEnrolment.JAVA: the thread goes to {@link #runStarting}, and its end to {@link #runEnded}. */
    private static final int JAVA = 2;

    private static volatile ThreadEvents events;

    private ThreadHooks() {}

    public static void install(ThreadEvents handler) {
        events = handler;
    }

    /** Removes {@code handler} if it is the one installed; the woven code then does nothing. */
    public static void uninstall(ThreadEvents handler) {
        if (events == handler) {
            events = null;
        }
    }

    public static boolean runStarting(Thread thread) {
        ThreadEvents handler = events;
        try {
            return handler != null && handler.runStarting(thread);
        } catch (Throwable e) {
            return false;
        }
    }

    /**
     * Called by perfpin's C library on a thread that starts, ahead of {@link #runStarting}: what C does with it.
     * Without an agent, or when it fails, the thread goes to {@link #runStarting}: {@code NativeEnrolment.JAVA},
     * which this class, on the bootstrap class path, cannot name.
     */
    public static int decide(Thread thread) {
        ThreadEvents handler = events;
        try {
            return handler == null ? JAVA : handler.decide(thread);
        } catch (Throwable e) {
            return JAVA;
        }
    }

    public static void runEnded(Thread thread) {
        ThreadEvents handler = events;
        try {
            if (handler != null) {
                handler.runEnded(thread);
            }
        } catch (Throwable e) {
            // the agent reported it
        }
    }

    public static Object taskStarting(String placement, String eventList) {
        ThreadEvents handler = events;
        try {
            return handler == null ? null : handler.taskStarting(placement, eventList);
        } catch (Throwable e) {
            return null;
        }
    }

    public static void taskEnded(Object token) {
        ThreadEvents handler = events;
        try {
            if (handler != null && token != null) {
                handler.taskEnded(token);
            }
        } catch (Throwable e) {
            // the agent reported it
        }
    }

    public static Object methodEntering(int method) {
        ThreadEvents handler = events;
        try {
            return handler == null ? null : handler.methodEntering(method);
        } catch (Throwable e) {
            return null;
        }
    }

    public static void methodExited(int method, Object token) {
        ThreadEvents handler = events;
        try {
            if (handler != null && token != null) {
                handler.methodExited(method, token);
            }
        } catch (Throwable e) {
            // the agent reported it
        }
    }
}
