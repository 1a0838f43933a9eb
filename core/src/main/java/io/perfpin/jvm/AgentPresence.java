package io.perfpin.jvm;

import java.io.IOException;
import java.io.StringReader;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;

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

    /** Whether the perfpin agent runs in JVM {@code pid}, as it says itself ({@link #of}). */
    public static boolean runs(long pid, Duration timeout) throws AttachException {
        return of(pid, timeout).filter(RUNNING::equals).isPresent();
    }
}
