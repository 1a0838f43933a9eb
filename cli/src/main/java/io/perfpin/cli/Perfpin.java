package io.perfpin.cli;

import io.perfpin.jvm.AttachException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code perfpin} command. */
@Command(name = "perfpin",
        mixinStandardHelpOptions = true,
        versionProvider = Version.class,
        description = "Pins Java threads to CPUs and counts, per Java thread, what the processor does.",
        subcommands = {DemoCommand.class, StatCommand.class, TopologyCommand.class, EventsCommand.class,
                CommandLine.HelpCommand.class})
public final class Perfpin {

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        return new CommandLine(new Perfpin())
                .setExecutionExceptionHandler(Perfpin::report)
                .execute(args);
    }

    /** One line, never a stack trace: a bad value is a usage error, anything else a failure. */
    private static int report(Exception e, CommandLine command, CommandLine.ParseResult parsed) {
        command.getErr().println("perfpin " + command.getCommandName() + ": " + e.getMessage());
        if (e instanceof AttachException) {
            switch (((AttachException) e).category()) {
                case NO_SUCH_PROCESS:
                    return ExitCode.NO_SUCH_PROCESS;
                case PERMISSION_DENIED:
                    return ExitCode.PERMISSION_DENIED;
                default:
                    return ExitCode.NOT_A_JVM;
            }
        }
        return e instanceof IllegalArgumentException ? ExitCode.USAGE : ExitCode.FAILURE;
    }
}
