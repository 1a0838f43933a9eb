package io.perfpin.jvm;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Loads a Java agent into a running HotSpot JVM over its attach socket, without the {@code jdk.attach}
 * module, so it works from a JRE or a jlinked runtime, and with the same care as {@link ThreadDump}: a
 * process is signalled only when it is a JVM that handles the signal.
 */
public final class AgentLoader {
    private AgentLoader() {}

    /**
     * @param options the text after {@code =}, as on {@code -javaagent:}; null for none
     * @throws AttachException categorised for the CLI's exit codes
     */
    public static void load(long pid, Path agentJar, String options, Duration timeout) throws AttachException {
        HotSpotAttach.loadAgent(pid, agentJar.toAbsolutePath(), options, timeout);
    }
}
