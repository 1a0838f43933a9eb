package io.perfpin.agent.impl;

import io.perfpin.event.EventParser;
import io.perfpin.jvm.AgentPresence;
import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.Syscalls;
import java.lang.instrument.Instrumentation;

/**
 * The implementation's entry, called by the launcher in the agent's own class loader. Whatever happens, the
 * application carries on: a bad option or a failure is one {@code [perfpin]} line on stderr, and the agent
 * stays off. Whether an agent runs is said in the system property {@link AgentPresence#PROPERTY}, which perfpin reads
 * through the JVM's attach channel: detach and attach then depend on no file.
 */
public final class AgentMain {
    /** Null before a start, and after a detach. */
    private static AgentStart running;

    private AgentMain() {}

    public static synchronized void start(String text, Instrumentation instrumentation, boolean attached) {
        AgentLog.newRequest();
        try {
            EventParser parser = new EventParser();
            AgentOptions options = AgentOptions.parse(text, parser);
            if (options.detach()) {
                detach();
            } else if (running != null && running.holdsAgent()) {
                AgentLog.refused("the agent already runs in this JVM; detach it first (perfpin detach "
                        + ProcessHandle.current().pid() + ") to start it with other options");
            } else {
                Syscalls syscalls = Backends.syscalls();
                HookClasses.install(syscalls, instrumentation);
                running = AgentStart.start(options, parser, syscalls, instrumentation, attached);
            }
        } catch (Throwable e) {
            notStarted(e);
        }
    }

    /** Said once, whether the start failed in premain, in agentmain or on its own thread after premain. */
    static void notStarted(Throwable e) {
        AgentLog.refused(
                e instanceof IllegalArgumentException
                        ? e.getMessage() + "; the agent is off, the application runs without it"
                        : "the agent failed to start, the application runs without it: " + e);
    }

    private static void detach() {
        if (running == null || !running.holdsAgent()) {
            AgentLog.refused("detach: the agent does not run in this JVM");
            return;
        }
        AgentStart agent = running;
        if (!agent.awaitStart()) {
            AgentLog.refused("detach: the agent is still starting, past the " + AgentStart.WAIT_MILLIS
                    + " ms that anything waits for it; detach again later");
            return;
        }
        if (!agent.holdsAgent()) {
            AgentLog.refused("detach: the agent does not run in this JVM: its start failed");
            return;
        }
        running = null;
        try {
            agent.close();
            System.clearProperty(AgentPresence.PROPERTY);
        } catch (RuntimeException | Error e) {
            // perfpin detach reads this, and says it, rather than "detached"
            System.setProperty(AgentPresence.PROPERTY, "its detach failed: " + e);
            AgentLog.refused("detach failed: " + e);
        }
    }
}
