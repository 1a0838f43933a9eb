package io.perfpin.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.jvm.AgentJar;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which options a fork already has that load perfpin's agent, so that the profiler adds no second one; and how the
 * profiler starts it in a fork that has none.
 */
class ForkAgentTest {
    private static final String JAVA =
            Path.of(System.getProperty("java.home"), "bin", "java").toString();

    /**
     * As perfpin run starts it where the fork runs this JDK's java, judged by the fork's arguments; by -javaagent where
     * those may leave java.instrument out, and where the fork runs another JDK's java, whose loading of the library
     * this JVM cannot vouch for.
     */
    @Test
    void aForkGetsTheAgentAsPerfpinRunStartsItWhereItRunsThisJava() throws Exception {
        ProfilerOptions defaults = ProfilerOptions.parse("");
        String agent = "threads=.*-jmh-worker-\\d+;events=sched;quiet";
        assertEquals(
                List.of(AgentJar.startOption(agent, List.of())), ForkAgent.options(defaults, JAVA, List.of("-Xmx1g")));
        assertEquals(
                List.of(AgentJar.javaagentOption(agent)),
                ForkAgent.options(defaults, JAVA, List.of("--limit-modules=java.base")));
        assertEquals(
                List.of(AgentJar.javaagentOption(agent)),
                ForkAgent.options(defaults, "/opt/another-jdk/bin/java", List.of("-Xmx1g")));
        assertEquals(List.of(), ForkAgent.options(ProfilerOptions.parse("agent=false"), JAVA, List.of()));
    }

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
