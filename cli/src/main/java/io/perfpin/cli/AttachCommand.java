package io.perfpin.cli;

import io.perfpin.StopSignal;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Loads the agent into a JVM that already runs, then watches it as {@code top} does. The agent enrols the
 * threads that already run (found in the JVM's thread dump) and those that start later. An attach that fails once
 * it loaded the agent detaches it ({@link AttachUndoneException}): the JVM is left as it was found.
 */
@Command(
        name = "attach",
        mixinStandardHelpOptions = true,
        description = {
            "Load the perfpin agent into a running JVM and watch it live, as top does.",
            "Leaving (Ctrl-C, --duration) keeps the agent running unless --detach-on-exit.",
            "Exits with 1 when the agent could not do what the options ask: a pin it could not have, threads"
                    + " it could not count or enrol (each said in perfpin's output as 'agent refused: ...'), or"
                    + " when it already runs with other options and --restart is not given.",
            "An attach that fails after loading the agent detaches it again, leaving the JVM as it was found;"
                    + " a pin to CPUs the JVM may not use is refused before anything is loaded (exit 2)."
        })
final class AttachCommand implements Callable<Integer> {
    @Parameters(paramLabel = "PID", converter = PidParser.class, description = "The JVM to attach to.")
    long pid;

    @Mixin
    AgentSettings agent;

    @Mixin
    DurationOption duration;

    @Mixin
    ViewOptions view;

    @Mixin
    OutputOptions output;

    @Option(names = "--detach-on-exit", description = "Detach the agent when this command ends.")
    boolean detachOnExit;

    @Option(
            names = "--restart",
            description = "When the agent already runs with other options: detach it (its"
                    + " threads' final records are written) and attach with these.")
    boolean restart;

    @Override
    public Integer call() throws Exception {
        // Opened before anything is asked of the JVM: an --output FILE that cannot be written changes nothing there,
        // and an agent that runs with other options is still running (--restart detaches it after every check).
        try (ReportOutput out = output.open()) {
            AgentSession session = AgentSession.attaching(pid, agent, view, restart);
            if (session.watchesOnly()) {
                System.err.println(
                        "perfpin attach: the agent already runs in " + pid + " with these options; watching it");
            }
            // A Ctrl-C ends the view; the signal's exit then waits for what follows it, a detach included.
            try (StopSignal held = StopSignal.install()) {
                session.attach(
                        detachOnExit,
                        out.people(),
                        () -> AgentSession.watch(
                                "attach",
                                pid,
                                null,
                                agent.threads,
                                agent.interval.interval,
                                duration.given(),
                                view,
                                out,
                                null));
            }
            return ExitCode.OK;
        }
    }
}
