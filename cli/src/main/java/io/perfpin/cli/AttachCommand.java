package io.perfpin.cli;

import io.perfpin.jvm.AgentJar;
import io.perfpin.jvm.AgentLoader;
import io.perfpin.jvm.AgentPresence;
import io.perfpin.jvm.JavaProcess;
import io.perfpin.stats.OptionsText;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.concurrent.Callable;

/**
 * Loads the agent into a JVM that already runs, then watches it as {@code top} does. The agent enrols the
 * threads that already run (found in the JVM's thread dump) and those that start later. An attach that fails once
 * it loaded the agent detaches it ({@link AttachUndoneException}): the JVM is left as it was found.
 */
@Command(name = "attach", mixinStandardHelpOptions = true,
        description = {"Load the perfpin agent into a running JVM and watch it live, as top does.",
                "Leaving (Ctrl-C, --duration) keeps the agent running unless --detach-on-exit.",
                "Exits with 1 when the agent could not do what the options ask: a pin it could not have, threads"
                        + " it could not count or enrol (each said in perfpin's output as 'agent refused: ...'), or"
                        + " when it already runs with other options and --restart is not given.",
                "An attach that fails after loading the agent detaches it again, leaving the JVM as it was found;"
                        + " a pin to CPUs the JVM may not use is refused before anything is loaded (exit 2)."})
final class AttachCommand implements Callable<Integer> {
    @Parameters(paramLabel = "PID", description = "The JVM to attach to.")
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

    @Option(names = "--restart", description = "When the agent already runs with other options: detach it (its"
            + " threads' final records are written) and attach with these.")
    boolean restart;

    @Override
    public Integer call() throws Exception {
        String options = agent.agentOptions();
        JavaProcess jvm = JavaProcess.of(pid);
        // The agent's own word, through the attach channel: a stats file may be missing or damaged while it runs.
        boolean found = AgentPresence.runs(pid, AgentSession.ATTACH_TIMEOUT);
        boolean restarted = found && agent.asksAnything() && !runsAsAsked();
        if (restarted && !restart) {
            AgentState state = AgentState.of(pid);
            throw new IllegalStateException("the agent already runs in " + pid + " with other options ("
                    + (state.options() != null ? "'" + state.options().shown() + "'" : "its stats file does not say"
                    + " which") + "): add --restart to detach it (writing its final records) and attach with these,"
                    + " or perfpin detach " + pid + " first");
        }
        boolean load = !found || restarted;
        if (load) {
            // What would only fail inside the JVM fails here, before anything is detached or loaded.
            agent.checkFor(pid);
        }
        if (restarted) {
            AgentSession.detach(jvm);
        } else if (found) {
            System.err.println("perfpin attach: the agent already runs in " + pid + " with these options; watching it");
        }
        // Opened before the agent loads: an --output FILE that cannot be written changes nothing in the JVM. A
        // Ctrl-C ends the view; the signal's exit then waits for what follows it, a detach included.
        try (StopSignal held = StopSignal.install();
             ReportOutput out = output.open()) {
            try {
                if (load) {
                    AgentLoader.load(pid, AgentJar.forThisUser(), options,
                            AgentSession.ATTACH_TIMEOUT);
                    if (!AgentPresence.runs(pid, AgentSession.ATTACH_TIMEOUT)) {
                        throw new AgentNotStartedException(pid, "it says no agent runs");
                    }
                    AgentSession.awaitAgent(pid, null);
                }
                watch(out);
            } catch (Exception e) {
                if (load || detachOnExit) {
                    throw AttachUndoneException.detaching(jvm, e, load, restarted);
                }
                throw e;
            }
            if (detachOnExit) {
                AgentSession.detach(jvm);
            }
            return ExitCode.OK;
        }
    }

    /** Whether the running agent's options, as its stats file tells them, are those asked; false when it cannot tell. */
    private boolean runsAsAsked() {
        OptionsText running = AgentState.of(pid).options();
        return running != null && agent.runsAsAsked(running);
    }

    /** The live view, until it ends; what the agent could not do, and threads none of which it counts, fail it. */
    private void watch(ReportOutput out) throws Exception {
        LiveView live = AgentSession.watch("attach", pid, null, agent.threads, agent.interval.interval,
                duration.given(), view, out, null);
        if (live.noneCounted() != null) {
            throw new IllegalStateException("none of the selected threads could be counted; " + live.noneCounted());
        }
        if (live.refusals() > 0) {
            throw new IllegalStateException("the agent could not do " + live.refusals() + " thing"
                    + (live.refusals() == 1 ? "" : "s") + " these options ask: see 'agent refused' above");
        }
    }
}
