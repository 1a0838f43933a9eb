package io.perfpin.jvm;

import java.io.IOException;
import java.io.StringReader;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * Whether the perfpin agent runs in a JVM, as the agent itself says: while one runs, it keeps the system property
 * {@value #PROPERTY} at {@value #RUNNING}, and the JVM reports its properties through its attach channel
 * ({@code jcmd PID VM.system_properties}). No file of perfpin's takes part, so the answer holds where the agent's
 * stats file could not be created, was removed, truncated or damaged, and asking loads nothing into the JVM. A JVM
 * that never loaded a Java agent (it maps no {@code libinstrument.so}) is answered from {@code /proc} alone,
 * without a signal or an attach listener started.
 */
public final class AgentPresence {
    /** The agent's own word on itself, set in the JVM it runs in. */
    public static final String PROPERTY = "perfpin.agent";
    /** Its value while an agent runs; after a detach that failed, it says why instead; no agent, no property. */
    public static final String RUNNING = "running";
    /**
     * Its value while an agent starts beside {@code main()}, from premain until it runs or its start failed: no longer
     * than the start's own deadline of 2 s.
     */
    public static final String STARTING = "starting";
    /** How long {@link #settled} waits for an agent that says {@link #STARTING}: that deadline, and a margin. */
    private static final long STARTING_MILLIS = 3_000;
    /** How often {@link #settled} asks again. */
    private static final long ASK_AGAIN_MILLIS = 20;
    /** The library of {@code java.lang.instrument}: no Java agent ever ran in a JVM without it. */
    private static final String INSTRUMENT_LIBRARY = "libinstrument.so";

    private AgentPresence() {}

    /**
     * What the agent in JVM {@code pid} says of itself: {@value #RUNNING}, why its last detach failed, or nothing
     * when no agent runs there.
     *
     * @throws AttachException categorised for the CLI's exit codes, when the JVM cannot be asked
     */
    public static Optional<String> of(long pid, Duration timeout) throws AttachException {
        ProcStatus target = HotSpotAttach.status(pid);
        String process = "process " + pid + " (" + target.command() + ")";
        HotSpotAttach.checkCredentials(process, target);
        HotSpotAttach.checkHotSpot(pid, process, target);
        if (!HotSpotAttach.mapsLibrary(pid, process, INSTRUMENT_LIBRARY)) {
            return Optional.empty();
        }
        String properties = HotSpotAttach.jcmd(pid, "VM.system_properties", timeout);
        Properties read = new Properties();
        try {
            read.load(new StringReader(properties));
        } catch (IOException | IllegalArgumentException e) {
            throw new AttachException(
                    AttachException.Category.NOT_A_JVM,
                    process + " answered VM.system_properties" + " with what is not a properties list: "
                            + e.getMessage());
        }
        return Optional.ofNullable(read.getProperty(PROPERTY));
    }

    /**
     * Whether JVM {@code pid} accepts no attach ({@code -XX:+DisableAttachMechanism}, as its hsperfdata file or its
     * options say): nothing can be loaded into it, nor asked of an agent in it, from outside. Asks nothing of it.
     *
     * @throws AttachException when the process is gone
     */
    public static boolean attachDisabled(long pid) throws AttachException {
        return HotSpotAttach.attachDisabled(pid);
    }

    /**
     * Whether JVM {@code pid} loaded a Java agent (it maps {@code libinstrument.so}): one that may be perfpin's. Read
     * from {@code /proc} alone, asking nothing of the JVM.
     *
     * @throws AttachException when the process is gone or its maps cannot be read
     */
    public static boolean loadedAJavaAgent(long pid) throws AttachException {
        return HotSpotAttach.mapsLibrary(pid, "process " + pid, INSTRUMENT_LIBRARY);
    }

    /**
     * As {@link #of}, once the agent no longer says {@link #STARTING}: asked again every {@value #ASK_AGAIN_MILLIS} ms
     * for {@value #STARTING_MILLIS} ms at most, after which it may still say so.
     */
    public static Optional<String> settled(long pid, Duration timeout) throws AttachException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STARTING_MILLIS);
        Optional<String> said = of(pid, timeout);
        while (said.filter(STARTING::equals).isPresent() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(ASK_AGAIN_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            said = of(pid, timeout);
        }
        return said;
    }

    /**
     * Whether the perfpin agent runs in JVM {@code pid}, as it says itself, once it no longer says it starts
     * ({@link #settled}).
     *
     * @throws IllegalStateException where it still says it starts
     */
    public static boolean runs(long pid, Duration timeout) throws AttachException {
        Optional<String> said = settled(pid, timeout);
        if (said.filter(STARTING::equals).isPresent()) {
            throw stillStarting(pid);
        }
        return said.filter(RUNNING::equals).isPresent();
    }

    /** The agent in {@code pid} has said it starts for longer than its start may take. */
    public static IllegalStateException stillStarting(long pid) {
        return new IllegalStateException("the agent in " + pid + " has been starting for over " + STARTING_MILLIS
                + " ms, past its own deadline; its stderr says why: try again once it runs");
    }
}
