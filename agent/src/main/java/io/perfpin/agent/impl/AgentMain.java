package io.perfpin.agent.impl;

import io.perfpin.event.EventParser;
import io.perfpin.jvm.AgentPresence;
import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.Syscalls;

import java.lang.instrument.Instrumentation;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The implementation's entry, called by the launcher in the agent's own class loader. Whatever happens, the
 * application carries on: a bad option or a failure is one {@code [perfpin]} line on stderr, and the agent
 * stays off. Whether an agent runs is said in the system property {@link AgentPresence#PROPERTY}, which perfpin reads
 * through the JVM's attach channel: detach and attach then depend on no file.
 *
 * <p>premain returns as soon as the options are parsed (a bad one is said before main() runs) and the thread hooks
 * are in place: with perfpin's C library, the registry, the stats file and the weaving start on a thread of their
 * own while main() runs, and the threads that start meanwhile wait for it at the hooks ({@link BackgroundStart}).
 * Without the library, threads are seen to start only by woven code, so premain starts everything itself, as
 * agentmain does.
 */
public final class AgentMain {
    /** How long a detach waits for a start still under way: longer than a start takes, bounded all the same. */
    private static final long DETACH_PATIENCE_MILLIS = StartGate.PATIENCE_MILLIS;
    /** The agent started, being started (not done), or that failed to (null); null when none was asked for. */
    private static CompletableFuture<Agent> running;

    private AgentMain() {
    }

    public static synchronized void start(String text, Instrumentation instrumentation, boolean attached) {
        AgentLog.newRequest();
        try {
            EventParser parser = new EventParser();
            AgentOptions options = AgentOptions.parse(text, parser);
            if (options.detach()) {
                detach();
            } else if (runs()) {
                AgentLog.refused("the agent already runs in this JVM; detach it first (perfpin detach "
                        + ProcessHandle.current().pid() + ") to start it with other options");
            } else {
                Syscalls syscalls = Backends.syscalls();
                HookClasses.install(syscalls, instrumentation);
                running = attached ? null : BackgroundStart.begin(options, parser, syscalls, instrumentation);
                if (running == null) {
                    running = CompletableFuture.completedFuture(Agent.start(options, parser, syscalls,
                            instrumentation, attached, null));
                    System.setProperty(AgentPresence.PROPERTY, AgentPresence.RUNNING);
                }
            }
        } catch (IllegalArgumentException e) {
            AgentLog.refused(e.getMessage() + "; the agent is off, the application runs without it");
        } catch (Throwable e) {
            AgentLog.refused("the agent failed to start, the application runs without it: " + e);
        }
    }

    /** Whether an agent runs or is starting. */
    private static boolean runs() {
        return running != null && !(running.isDone() && running.getNow(null) == null);
    }

    private static void detach() {
        Agent agent;
        try {
            agent = running == null ? null : running.get(DETACH_PATIENCE_MILLIS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            AgentLog.refused("detach: the agent is still starting after " + DETACH_PATIENCE_MILLIS + " ms; try again");
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            AgentLog.refused("detach: interrupted while the agent was starting; try again");
            return;
        } catch (ExecutionException e) {
            agent = null; // never: the start completes with null when it fails
        }
        if (agent == null) {
            AgentLog.refused("detach: the agent does not run in this JVM");
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
