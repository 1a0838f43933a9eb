package io.perfpin.agent.impl;

import io.perfpin.counter.KernelReadiness;
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
    /**
     * The threads whose counters the descriptor table has room for before the sampler first looks at it: with the
     * default events, a table of 512 entries, 4 KB of the kernel's memory.
     */
    private static final int ROOM_THREADS = 64;

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
                prepareKernel(syscalls, ROOM_THREADS * options.events().events().size());
                HookClasses.install(syscalls, instrumentation);
                running = AgentStart.start(options, parser, syscalls, instrumentation, attached);
            }
        } catch (Throwable e) {
            notStarted(e);
        }
    }

    /**
     * The first counters opened on a host where none was open in the last second wait for the kernel to switch its
     * scheduler's perf hooks on ({@link KernelReadiness}): 5 to 20 ms here, with no CPU used. A thread of its own opens
     * and closes one counter at once, so that the wait passes while this thread defines the hooks and builds the
     * registry, before it opens counters of its own. It also grows the descriptor table to hold {@code descriptors}
     * more, which the application's threads would otherwise wait for as they start; past those, the sampler keeps the
     * table ahead ({@link io.perfpin.counter.DescriptorTable}). Nothing depends on it: what fails there, the counting
     * meets again and says. An attach's start does it too, on the attach's thread. A class, not a lambda: linking a
     * lambda costs premain more than the work it stands for.
     */
    private static void prepareKernel(Syscalls syscalls, int descriptors) {
        Thread thread = new Thread(
                new Runnable() {
                    @Override
                    public void run() {
                        try {
                            KernelReadiness.prepare(syscalls, descriptors);
                        } catch (RuntimeException | Error e) {
                            // the counters' own open meets it again, and says it
                        }
                    }
                },
                "perfpin-kernel");
        thread.setDaemon(true);
        try {
            thread.start();
        } catch (OutOfMemoryError e) {
            // no thread to be had: the counters' own open waits for the kernel, as it did without this one
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
