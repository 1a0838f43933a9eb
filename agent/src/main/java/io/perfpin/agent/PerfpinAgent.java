package io.perfpin.agent;

import java.lang.instrument.Instrumentation;

/**
 * The agent's entry points: {@code -javaagent:perfpin-agent.jar=OPTIONS} (premain), dynamic attach (agentmain), and
 * {@code -agentpath:libperfpin-agent.so=OPTIONS}, whose C code hands the options to {@link #launching} and then has the
 * JDK call agentmain as the JVM starts. All take one path, and none lets anything escape to the application.
 */
public final class PerfpinAgent {
    /**
     * The options libperfpin-agent.so gave, for the agentmain it has the JDK call next, on the same thread; null
     * otherwise, so that an attach meanwhile, or after a start that failed, is an attach.
     */
    private static String launched;

    private static Thread launcherThread;

    private PerfpinAgent() {}

    public static void premain(String options, Instrumentation instrumentation) {
        AgentLauncher.launch(options, instrumentation, false);
    }

    public static void agentmain(String options, Instrumentation instrumentation) {
        String atStart = null;
        synchronized (PerfpinAgent.class) {
            if (launcherThread == Thread.currentThread()) {
                atStart = launched;
                launched = null;
                launcherThread = null;
            }
        }
        if (atStart != null) {
            // the JVM's start, on the thread that runs main() next, as premain: the JDK passed no options
            AgentLauncher.launch(atStart, instrumentation, false);
        } else {
            AgentLauncher.launch(options, instrumentation, true);
        }
    }

    /**
     * Called by libperfpin-agent.so at the JVM's start (JVMTI VMInit) just before it has agentmain called on this
     * thread, and with null just after, to take back what a start that failed did not take.
     */
    @SuppressWarnings("unused")
    private static synchronized void launching(String options) {
        launched = options;
        launcherThread = options == null ? null : Thread.currentThread();
    }
}
