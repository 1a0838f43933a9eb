package io.perfpin.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code perfpin} command. */
@Command(name = "perfpin",
        mixinStandardHelpOptions = true,
        versionProvider = Version.class,
        description = "Pins Java threads to CPUs and counts, per Java thread, what the processor does.",
        subcommands = {CommandLine.HelpCommand.class})
public final class Perfpin {

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        return new CommandLine(new Perfpin())
                .setExitCodeExceptionMapper(e -> ExitCode.FAILURE)
                .execute(args);
    }
}
