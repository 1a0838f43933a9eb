package io.perfpin.agent.impl;

import io.perfpin.agent.bootstrap.ThreadHooks;
import io.perfpin.event.EventParser;
import io.perfpin.jvm.AgentPresence;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.nativeio.ThreadLifecycleEvents;

import java.lang.instrument.Instrumentation;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * premain's start on a thread of its own, so that main() need not wait for it: the thread hooks hold the threads
 * that start meanwhile ({@link StartGate}). A class apart from {@link AgentMain} because it names the hook classes,
 * which exist only once {@link HookClasses} put them in the bootstrap class loader.
 */
final class BackgroundStart {
    private BackgroundStart() {
    }

    /**
     * Starts the agent on a thread of its own, the hooks holding the threads that start meanwhile: the agent it
     * completes with, or null when that failed, which it said. Null, with nothing done, when the JVM cannot report
     * thread starts (no C library): premain then starts it itself.
     */
    static CompletableFuture<Agent> begin(AgentOptions options, EventParser parser, Syscalls syscalls,
                                          Instrumentation instrumentation) {
        ThreadRules rules = options.rules();
        StartGate gate = new StartGate(syscalls::gettid, t -> rules.enrols(t.getName(), t.getClass()));
        ThreadHooks.install(gate);
        if (ThreadLifecycleEvents.enable(syscalls, ThreadHooks.class) != 0) {
            ThreadHooks.uninstall(gate);
            return null;
        }
        gate.passCurrentThread(); // premain's thread runs main(): enrolled once the start ends
        CompletableFuture<Agent> starting = new CompletableFuture<>();
        Thread start = gate.startThread(() -> new Thread(() -> {
            Agent agent = null;
            try {
                agent = startHeld(options, parser, syscalls, instrumentation, gate);
            } catch (Throwable e) {
                AgentLog.refused("the agent failed to start, the application runs without it: " + e);
            } finally {
                starting.complete(agent); // whatever happened: a detach and the JVM's exit wait for it
            }
        }, "perfpin-start"));
        start.setDaemon(true);
        // A JVM whose main() ends first waits for the start, bounded, before it halts: the threads it counted by
        // then get their final records, by the agent's own hook or, when the start ended too late to add that, by
        // the start itself, which then closes what it started.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> awaitStart(starting), "perfpin-start-wait"));
        System.setProperty(AgentPresence.PROPERTY, AgentPresence.RUNNING); // starting: cleared if it fails
        start.start();
        return starting;
    }

    /** The start itself, on its own thread: the agent, or null when it failed, which it said. */
    private static Agent startHeld(AgentOptions options, EventParser parser, Syscalls syscalls,
                                   Instrumentation instrumentation, StartGate gate) {
        try {
            return Agent.start(options, parser, syscalls, instrumentation, false, gate);
        } catch (IllegalArgumentException e) {
            AgentLog.refused(e.getMessage() + "; the agent is off, the application runs without it");
        } catch (IllegalStateException e) {
            if (!shuttingDown(e)) {
                AgentLog.refused("the agent failed to start, the application runs without it: " + e);
            }
        } catch (Throwable e) {
            AgentLog.refused("the agent failed to start, the application runs without it: " + e);
        }
        // What the start took back leaves the hooks; these go too, and every thread held goes on uncounted.
        ThreadLifecycleEvents.disable(syscalls);
        ThreadHooks.uninstall(gate);
        gate.open(null);
        System.clearProperty(AgentPresence.PROPERTY);
        return null;
    }

    private static void awaitStart(CompletableFuture<Agent> starting) {
        try {
            starting.get(StartGate.PATIENCE_MILLIS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            // halts all the same: the start is killed where it is, and the records it had not written are lost
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A JVM whose main() ended before the start did refuses its shutdown hook: nothing to say then. */
    private static boolean shuttingDown(IllegalStateException e) {
        return "Shutdown in progress".equals(e.getMessage());
    }
}
