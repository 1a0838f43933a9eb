package io.perfpin.agent;

import java.lang.instrument.Instrumentation;

/**
 * The agent's two entry points, {@code -javaagent:perfpin-agent.jar=OPTIONS} (premain) and dynamic attach
 * (agentmain). Both take one path, and neither lets anything escape to the application.
 */
public final class PerfpinAgent {
    private PerfpinAgent() {}

    public static void premain(String options, Instrumentation instrumentation) {
        AgentLauncher.launch(options, instrumentation, false);
    }

    public static void agentmain(String options, Instrumentation instrumentation) {
        AgentLauncher.launch(options, instrumentation, true);
    }
}
