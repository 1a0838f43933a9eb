package io.perfpin.agent;

import java.lang.instrument.Instrumentation;

/**
 * The agent's entry points: {@code -javaagent:perfpin-agent.jar=OPTIONS} (premain), dynamic attach (agentmain), and
 * {@code -agentpath:libperfpin-agent.so=OPTIONS}, whose C code hands the options to {@link #launching} and then has the
 * JDK call agentmain as the JVM starts. All take one path, and none lets anything escape to the application.
 */
public final class PerfpinAgent {
    /**
     * The options libperfpin-agent.so gave, until the agentmain it has the JDK call next takes them; null otherwise, so
     * that a later attach is an attach.
     */
    private static String launched;

    private PerfpinAgent() {}

    public static void premain(String options, Instrumentation instrumentation) {
        AgentLauncher.launch(options, instrumentation, false);
    }

    public static void agentmain(String options, Instrumentation instrumentation) {
        String atStart;
        synchronized (PerfpinAgent.class) {
            atStart = launched;
            launched = null;
        }
        if (atStart != null) {
            // the JVM's start, on the thread that runs main() next, as premain: the JDK passed no options
            AgentLauncher.launch(atStart, instrumentation, false);
        } else {
            AgentLauncher.launch(options, instrumentation, true);
        }
    }

    /** Called by libperfpin-agent.so at the JVM's start (JVMTI VMInit), just before it has agentmain called. */
    @SuppressWarnings("unused")
    private static synchronized void launching(String options) {
        launched = options;
    }
}
