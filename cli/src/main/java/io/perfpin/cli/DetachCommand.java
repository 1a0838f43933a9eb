package io.perfpin.cli;

import io.perfpin.files.FileErrors;
import io.perfpin.jvm.AgentJar;
import io.perfpin.jvm.AgentLoader;
import io.perfpin.jvm.AgentStatsFile;
import io.perfpin.jvm.JavaProcess;
import io.perfpin.stats.StatsFileReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.util.concurrent.Callable;

/** Stops the agent in a JVM: final records written, counters closed, woven code taken back, pins undone. */
@Command(name = "detach", mixinStandardHelpOptions = true,
        description = "Stop the perfpin agent in a JVM: its threads get their affinity back, every counter is"
                + " closed, and the woven code is taken back.")
final class DetachCommand implements Callable<Integer> {
    @Parameters(paramLabel = "PID", description = "The JVM to detach from.")
    long pid;

    @Override
    public Integer call() throws Exception {
        JavaProcess jvm = JavaProcess.of(pid);
        AgentState agent = AgentState.of(pid);
        if (agent.unreadable() != null) {
            throw FileErrors.unreadableStatsFile(AgentStatsFile.of(pid), agent.unreadable());
        }
        if (!agent.active()) {
            throw new NoAgentException(pid, AgentStatsFile.of(pid));
        }
        detach(jvm);
        System.out.println("perfpin: detached from " + pid);
        return ExitCode.OK;
    }

    /** agentmain returns once the agent has closed its stats file, so it is closed when this returns. */
    static void detach(JavaProcess jvm) throws Exception {
        long pid = jvm.pid();
        AgentLoader.load(pid, AgentJar.forThisUser(), "detach", AttachCommand.ATTACH_TIMEOUT);
        boolean closed;
        try (StatsFileReader reader = AgentStatsFile.open(pid)) {
            closed = reader.isClosed();
        } catch (IOException e) {
            throw FileErrors.unreadableStatsFile(AgentStatsFile.of(pid), e);
        }
        if (!closed) {
            throw new IllegalStateException("process " + pid + " took the detach request, but its stats file is"
                    + " still open; its stderr says why");
        }
    }
}
