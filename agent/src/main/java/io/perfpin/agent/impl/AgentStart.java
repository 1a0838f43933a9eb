package io.perfpin.agent.impl;

import io.perfpin.agent.bootstrap.ThreadEvents;
import io.perfpin.agent.bootstrap.ThreadHooks;
import io.perfpin.event.EventParser;
import io.perfpin.jvm.AgentPresence;
import io.perfpin.nativeio.Backend;
import io.perfpin.nativeio.NativeEnrolment;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.nativeio.ThreadLifecycleEvents;
import io.perfpin.registry.CountedAhead;
import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * An agent from its start to its detach or the JVM's exit, with the shutdown hook that writes its final records.
 *
 * <p>premain, where the rules do not pin {@code main} and perfpin's C library is there, starts it on a thread of its
 * own and returns: the registry, the counters' encodings, the {@code out=} and {@code stats=} files and the exports
 * start beside {@code main()}. What must be in place before {@code main()} is, first: the options are parsed (a bad
 * one is said, and the agent stays off), the library is loaded and checked, main's counters are open where the rules
 * count it ({@link CountedAhead}), the JVM reports thread starts, and annotated classes are watched for. Until the agent is up, this class stands in for it. A thread that the rules count
 * or pin waits for it as it starts, so that it is still counted from its first instruction; a thread they leave alone
 * goes on at once. An annotated class waits as it loads, to be woven, and the JVM's exit waits, for the final records.
 * All of it waits {@value #WAIT_MILLIS} ms from premain at most, where the start takes tens of milliseconds; past that,
 * nothing waits any more, and that is said once.
 *
 * <p>Otherwise the agent starts on the calling thread ({@link #start}).
 */
final class AgentStart implements ThreadEvents {
    /** The most, from premain on, that what needs the agent waits for its start in the background. */
    static final long WAIT_MILLIS = 2_000;

    /**
     * What premain set up before the agent started on a thread of its own; {@code ahead} holds main's counters where
     * the rules count it, null otherwise.
     */
    record Early(AnnotationValues values, WeavingOnDemand onDemand, CountedAhead ahead) {}

    private final CountDownLatch done = new CountDownLatch(1);
    private final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
    /** 1 once said (not an AtomicBoolean: {@link AgentLog}). */
    private final AtomicInteger toldLate = new AtomicInteger();

    private final ThreadRules rules;
    private final Thread exitHook;
    /** What premain counted ahead of the agent ({@code main}), or null. */
    private volatile CountedAhead countedAhead;
    /** Null until the agent is up, and for good when its start failed. */
    private volatile Agent agent;
    /** Set when the start failed: nothing waits for it, and the agent is not there to detach. */
    private volatile boolean failed;
    /** Set once the deadline passed with the start still under way: nothing waits for it any more. */
    private volatile boolean late;

    private AgentStart(ThreadRules rules) {
        this.rules = rules;
        // A class, not a lambda: premain links it, where a lambda costs more than the work it stands for.
        exitHook = new Thread(
                new Runnable() {
                    @Override
                    public void run() {
                        Agent running = awaitAgent();
                        if (running != null) {
                            running.closeAtExit();
                        }
                    }
                },
                "perfpin-shutdown");
    }

    /**
     * premain's start in the background where it can be; on the calling thread otherwise: an attach's; premain's where
     * the rules pin {@code main}, which is pinned, then counted, as the registry's pins say; without the C library,
     * whose absence means weaving {@code Thread.run()} before main(); and with {@code virtual=}, since the JVM reports no
     * virtual thread's start to the hooks, so one that main() started before the agent was up would not be counted from
     * its first mount. Where the rules count {@code main} without pinning it, premain opens its counters itself
     * ({@link CountedAhead}), and the registry takes it in as it starts.
     */
    static AgentStart start(
            AgentOptions options,
            EventParser parser,
            Syscalls syscalls,
            Instrumentation instrumentation,
            boolean attached)
            throws IOException {
        Thread current = Thread.currentThread();
        return attached
                        || options.rules().placementFor(current.getName()) != null
                        || syscalls.backend() != Backend.JNI
                        || options.virtual() != null
                ? here(options, parser, syscalls, instrumentation, attached)
                : inBackground(
                        options,
                        parser,
                        syscalls,
                        instrumentation,
                        options.rules().enrols(current.getName(), current.getClass()));
    }

    private static AgentStart here(
            AgentOptions options,
            EventParser parser,
            Syscalls syscalls,
            Instrumentation instrumentation,
            boolean attached)
            throws IOException {
        AgentStart start = new AgentStart(options.rules());
        Agent agent = Agent.start(options, parser, syscalls, instrumentation, attached, null);
        try {
            Runtime.getRuntime().addShutdownHook(start.exitHook);
        } catch (IllegalStateException | SecurityException e) {
            agent.close(); // the JVM exits already: nothing would write the final records
            throw e;
        }
        start.started(agent);
        return start;
    }

    /**
     * What must be in place before {@code main()}, main's counters first where {@code countsMain}, then the rest on the
     * thread {@code perfpin-start}. Where the JVM does not report thread starts to the library, the agent starts here.
     */
    private static AgentStart inBackground(
            AgentOptions options,
            EventParser parser,
            Syscalls syscalls,
            Instrumentation instrumentation,
            boolean countsMain)
            throws IOException {
        AgentStart start = new AgentStart(options.rules());
        CountedAhead ahead =
                countsMain ? CountedAhead.currentThread(syscalls, options.events(), options.descriptors()) : null;
        WeavingOnDemand onDemand = null;
        try {
            ThreadHooks.install(start);
            if (ThreadLifecycleEvents.enable(syscalls, ThreadHooks.class) != 0) {
                ThreadHooks.uninstall(start);
                if (ahead != null) {
                    ahead.close();
                }
                return here(options, parser, syscalls, instrumentation, false);
            }
            start.countedAhead = ahead;
            AnnotationValues values = new AnnotationValues(parser);
            onDemand = WeavingOnDemand.install(instrumentation, values, new Supplier<MethodCounting>() {
                @Override
                public MethodCounting get() {
                    Agent running = start.awaitAgent();
                    return running == null ? null : running.methods();
                }
            });
            Early early = new Early(values, onDemand, ahead);
            Runtime.getRuntime().addShutdownHook(start.exitHook);
            Thread thread = new Thread(
                    new Runnable() {
                        @Override
                        public void run() {
                            start.startAgent(options, parser, syscalls, instrumentation, early);
                        }
                    },
                    "perfpin-start");
            thread.setDaemon(true);
            sayPresence(AgentPresence.STARTING); // until started() says it runs: perfpin attach and detach wait
            thread.start();
        } catch (RuntimeException | Error e) {
            start.takeBack(syscalls, instrumentation, onDemand, ahead);
            throw e;
        }
        return start;
    }

    private void startAgent(
            AgentOptions options, EventParser parser, Syscalls syscalls, Instrumentation instrumentation, Early early) {
        Agent running;
        try {
            running = Agent.start(options, parser, syscalls, instrumentation, false, early);
        } catch (IOException | RuntimeException | Error e) {
            try {
                AgentMain.notStarted(e); // first: the JVM's exit, which waits for the start, may come right after
            } catch (RuntimeException | Error unsaid) {
                // no heap left to say it: what the start took is given back all the same, rather than this thread
                // ending with the Error, which the JVM would hand to the application's handler
            } finally {
                takeBack(syscalls, instrumentation, early.onDemand(), early.ahead());
            }
            return;
        }
        started(running);
    }

    /**
     * After a failed start in the background: the hooks, the thread events, the weaving, main's counters where no
     * registry took them in, and the exit hook go, each whatever the one before threw (a heap out of memory, say), so
     * that none is left behind. Only then is the start said to have failed, which lets another agent start.
     */
    private void takeBack(
            Syscalls syscalls, Instrumentation instrumentation, WeavingOnDemand onDemand, CountedAhead ahead) {
        try {
            ThreadHooks.uninstall(this);
        } catch (RuntimeException | Error e) {
            // and the next step all the same
        }
        try {
            ThreadLifecycleEvents.disable(syscalls);
        } catch (RuntimeException | Error e) {
            // and the next step all the same
        }
        try {
            if (onDemand != null) {
                onDemand.reset(instrumentation);
            }
        } catch (RuntimeException | Error e) {
            // and the next step all the same
        }
        try {
            if (ahead != null) {
                ahead.close();
            }
        } catch (RuntimeException | Error e) {
            // and the next step all the same
        }
        try {
            removeExitHook();
        } catch (RuntimeException | Error e) {
            // the hook, with no agent to wait for, returns at once
        }
        try {
            sayPresence(null);
        } catch (RuntimeException | Error e) {
            // not said: perfpin attach and detach wait for a start said for over its deadline, then say so
        } finally {
            failed = true;
            done.countDown();
        }
    }

    private void started(Agent running) {
        agent = running;
        done.countDown();
        try {
            System.setProperty(AgentPresence.PROPERTY, AgentPresence.RUNNING);
        } catch (SecurityException e) {
            AgentLog.info("the agent runs, but cannot say so in the system property " + AgentPresence.PROPERTY + " ("
                    + e.getMessage() + "): perfpin attach and detach will not see it");
        } catch (Error e) {
            // no heap to set it: it says "starting" on, and perfpin attach and detach say it started too long ago
        }
    }

    /**
     * Says in the system property {@link AgentPresence#PROPERTY} that the agent starts, or (null) that none runs. Where
     * the property cannot be set, {@link #started} says so.
     */
    private static void sayPresence(String value) {
        try {
            if (value != null) {
                System.setProperty(AgentPresence.PROPERTY, value);
            } else {
                System.clearProperty(AgentPresence.PROPERTY);
            }
        } catch (SecurityException e) {
            // said by started(), which fails to set it likewise
        }
    }

    /** Whether an agent runs or starts: false once its start failed. */
    boolean holdsAgent() {
        return !failed;
    }

    /**
     * Whether the start is over, the agent up or its start failed: waits for it until {@value #WAIT_MILLIS} ms after
     * premain at most.
     */
    boolean awaitStart() {
        awaitAgent();
        return done.getCount() == 0;
    }

    /** Detach, once the start is over: the agent, if it is up, and its exit hook. */
    void close() {
        Agent running = agent;
        if (running != null) {
            removeExitHook();
            running.close();
        }
    }

    private void removeExitHook() {
        try {
            Runtime.getRuntime().removeShutdownHook(exitHook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook runs or ran
        }
    }

    /**
     * The agent, once up; null when its start failed or is still under way at the deadline, which is said once. An
     * interrupt does not end the wait, which is short: the thread gets it back after.
     */
    private Agent awaitAgent() {
        Agent running = agent;
        if (running != null || failed || late) {
            return running;
        }
        boolean interrupted = false;
        try {
            for (long left = deadline - System.nanoTime(); left > 0; left = deadline - System.nanoTime()) {
                try {
                    if (done.await(left, TimeUnit.NANOSECONDS)) {
                        return agent;
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            late = true;
            if (toldLate.compareAndSet(0, 1)) {
                AgentLog.info("the agent took more than " + WAIT_MILLIS + " ms to start: what waited for it went on"
                        + " without it (a thread that started is not counted, an annotated class not woven, and at"
                        + " the JVM's exit no final record is written)");
            }
            return agent;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt(); // the application's own, which it sees as if the wait had not been
            }
        }
    }

    // While the agent starts in the background, the hooks call these: each waits for the agent, then calls it.

    /**
     * A thread that the rules neither count nor pin does not wait: perfpin's own, the JVM's service threads, and
     * {@code main} where they leave it out. Nor does {@code main} where premain counted it ahead: the JVM reports its
     * start after premain, just before {@code main()}, which would otherwise wait for the agent.
     */
    @Override
    public boolean runStarting(Thread thread) {
        CountedAhead ahead = countedAhead;
        if (ahead != null && thread == ahead.thread()) {
            return false; // the registry takes it in as it starts
        }
        Agent running = agentFor(thread);
        return running != null && running.events().runStarting(thread);
    }

    /**
     * As {@link #runStarting}. C asks only once the agent is up ({@code enrolInC} comes after the enrolment replaced
     * this handler), and code is woven only then: this and the task and method calls below wait for a caller that read
     * the handler just before.
     */
    @Override
    public int decide(Thread thread) {
        Agent running = agentFor(thread);
        return running != null ? running.events().decide(thread) : NativeEnrolment.SKIP;
    }

    /** The agent, waited for where the rules count or pin {@code thread}; as it is now for any other thread. */
    private Agent agentFor(Thread thread) {
        return rules.enrols(thread.getName(), thread.getClass()) ? awaitAgent() : agent;
    }

    /**
     * A thread that ends before the agent is up was not enrolled by it: nothing to wait for; but for the one premain
     * counted ahead, whose end waits for the agent, which records it. Where the agent is not up by the deadline, or its
     * start failed, that thread's counters close with it, and no record claims what runs on that thread after its end
     * (the JVM's {@code DestroyJavaVM}); unless the agent's registry took them in meanwhile: its end is then said to the
     * agent if it is up by now.
     */
    @Override
    public void runEnded(Thread thread) {
        CountedAhead ahead = countedAhead;
        Agent running;
        if (ahead != null && thread == ahead.thread()) {
            running = awaitAgent();
            if (running == null && ahead.closeUntaken()) {
                running = agent;
            }
        } else {
            running = agent;
        }
        if (running != null) {
            running.events().runEnded(thread);
        }
    }

    @Override
    public Object taskStarting(String placement, String events) {
        Agent running = awaitAgent();
        return running != null ? running.events().taskStarting(placement, events) : null;
    }

    @Override
    public void taskEnded(Object token) {
        Agent running = agent;
        if (running != null) {
            running.events().taskEnded(token);
        }
    }

    @Override
    public Object methodEntering(int method) {
        Agent running = awaitAgent();
        return running != null ? running.events().methodEntering(method) : null;
    }

    @Override
    public void methodExited(int method, Object token) {
        Agent running = agent;
        if (running != null) {
            running.events().methodExited(method, token);
        }
    }
}
