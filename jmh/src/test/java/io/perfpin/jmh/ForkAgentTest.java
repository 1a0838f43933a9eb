package io.perfpin.jmh;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.jvm.AgentJar;
import org.junit.jupiter.api.Test;

/** Which options a fork already has that load perfpin's agent, so that the profiler adds no second one. */
class ForkAgentTest {
    @Test
    void perfpinsAgentIsKnownByItsJarsPremainOrItsLibrary() throws Exception {
        assertTrue(ForkAgent.isPerfpin("-javaagent:" + AgentJar.forThisUser() + "=threads=x"));
        assertTrue(ForkAgent.isPerfpin("-agentpath:/opt/perfpin/libperfpin-agent.so=events=sched"));
        assertTrue(ForkAgent.isPerfpin("-agentpath:libperfpin-agent.so"));
        assertFalse(ForkAgent.isPerfpin("-agentpath:/opt/ap/libasyncProfiler.so=start"));
        assertFalse(ForkAgent.isPerfpin("-agentpath:/opt/x/not-libperfpin-agent.so"));
        assertFalse(ForkAgent.isPerfpin("-javaagent:/no/such.jar"));
        assertFalse(ForkAgent.isPerfpin("-Xmx1g"));
    }
}
