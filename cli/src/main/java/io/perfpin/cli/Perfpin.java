package io.perfpin.cli;

import io.perfpin.StopSignal;
import io.perfpin.event.NearestNames;
import io.perfpin.jvm.AttachException;
import io.perfpin.jvm.ProcessChangedException;
import io.perfpin.options.UrlText;
import io.perfpin.report.TerminalText;
import java.util.Arrays;
import java.util.List;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The {@code perfpin} command. Where the first word names one of its commands (but help), that command is parsed
 * alone ({@link #alone}), since picocli reads every option of every command it is given before it parses, its
 * own parser's set-up included, which was most of what {@code perfpin stat} did before its first count; else
 * {@link #commandLine} has them all, for the usage, the completion script and a mistyped command's nearest names.
 */
@Command(
        name = "perfpin",
        mixinStandardHelpOptions = true,
        versionProvider = Version.class,
        description = "Pins Java threads to CPUs and counts, per Java thread, what the processor does.")
public final class Perfpin {
    /** Every command, in the order --help lists them. */
    private static final List<String> COMMANDS =
            List.of("demo", "run", "attach", "top", "stat", "detach", "report", "list", "topology", "events", "help");

    /**
     * The built-in converters that picocli finds by reflection, for types that no option of perfpin has without its
     * own converter (its durations have their own parser): looking each one up was a sixth of a command line's
     * set-up. picocli reads the property as it makes a command line, and leaves these out. One pattern, not a list:
     * picocli compiles each pattern of the list again for each of the twenty converters, 3 ms for two of them.
     */
    static final String UNUSED_CONVERTERS = "java\\.(sql|time)\\..*";

    static {
        System.setProperty("picocli.converters.excludes", UNUSED_CONVERTERS);
        // Else picocli's factory looks for Groovy's Closure class, in every jar, as it first makes a command: 5 ms of
        // the main thread, for a class that perfpin has not and annotations that are not Groovy's.
        System.setProperty("picocli.disable.closures", "true");
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        String first = args.length > 0 ? args[0] : null;
        if ("stat".equals(first)) {
            StatCommand.prepare(args);
        }
        boolean named = first != null && COMMANDS.contains(first) && !first.equals("help");
        // Once the command has installed a StopSignal, a Ctrl-C's or SIGTERM's exit waits (up to 10 s) for it to end,
        // its failure's line said too.
        List<StopSignal> held = StopSignal.hold();
        try {
            return (named ? alone(first) : commandLine())
                    .setParameterExceptionHandler(Failures.HANDLER)
                    .setExecutionExceptionHandler(Failures.HANDLER)
                    .execute(named ? Arrays.copyOfRange(args, 1, args.length) : args);
        } catch (OutOfMemoryError e) {
            // What was built for the command is garbage now: room enough for its one line, never a stack trace.
            System.err.println("perfpin" + (named ? " " + first : "") + ": out of memory (a heap of "
                    + Runtime.getRuntime().maxMemory() / (1 << 20) + " MiB): give it more with"
                    + " PERFPIN_JAVA_OPTS=-Xmx<size>, or give it less to read");
            return ExitCode.FAILURE;
        } finally {
            StopSignal.release(held);
        }
    }

    /**
     * The command {@code name} (not help) as its own command line, for the arguments after its name: named {@code
     * perfpin NAME} in its usage and messages, and with perfpin's version, as it would be under perfpin.
     */
    static CommandLine alone(String name) {
        CommandLine command = CommandModel.commandLine(command(name));
        command.setCommandName("perfpin " + name);
        command.getCommandSpec().versionProvider(new Version());
        return command;
    }

    /** perfpin with every command: the usage (whose exit codes are perfpin's), help, completion. */
    static CommandLine commandLine() {
        CommandLine perfpin = new CommandLine(new Perfpin());
        COMMANDS.forEach(name -> perfpin.addSubcommand(name, command(name)));
        CommandLine completion = new CommandLine(new AutoComplete.GenerateCompletion());
        // picocli hides it by default; here it is a command like the others: perfpin completion > file.
        completion
                .getCommandSpec()
                .usageMessage()
                .hidden(false)
                .description("Print a bash completion script: source <(perfpin completion)");
        perfpin.addSubcommand("completion", completion);
        perfpin.getCommandSpec()
                .usageMessage()
                .exitCodeListHeading("Exit codes:%n")
                .exitCodeList(ExitCode.summaries());
        return perfpin;
    }

    /**
     * How a command line fails: {@link #usage} and {@link #report}. A class, not two method references: picocli's
     * handler interfaces are Java 5 class files, which the CLI's class-data sharing archive leaves out once a lambda
     * links them at dump time, and the JVM then loads, verifies and spins them at every start.
     */
    private static final class Failures
            implements CommandLine.IParameterExceptionHandler, CommandLine.IExecutionExceptionHandler {
        static final Failures HANDLER = new Failures();

        @Override
        public int handleParseException(ParameterException e, String[] args) {
            return usage(e, args);
        }

        @Override
        public int handleExecutionException(Exception e, CommandLine command, CommandLine.ParseResult parsed) {
            return report(e, command, parsed);
        }
    }

    /** A new instance of the command {@code name}, one of {@link #COMMANDS}: no class of the others is loaded. */
    private static Object command(String name) {
        return switch (name) {
            case "demo" -> new DemoCommand();
            case "run" -> new RunCommand();
            case "attach" -> new AttachCommand();
            case "top" -> new TopCommand();
            case "stat" -> new StatCommand();
            case "detach" -> new DetachCommand();
            case "report" -> new ReportCommand();
            case "list" -> new ListCommand();
            case "topology" -> new TopologyCommand();
            case "events" -> new EventsCommand();
            default -> new CommandLine.HelpCommand();
        };
    }

    /**
     * A bad command line is one line naming the bad token, never the whole usage: a value an option's parser
     * refused says why in its own words, an unknown option gets the nearest ones. The token is quoted with its
     * control characters escaped, as in every message.
     */
    private static int usage(ParameterException e, String[] args) {
        CommandLine command = e.getCommandLine();
        String message = e.getMessage();
        if (e.getCause() instanceof IllegalArgumentException) {
            String option =
                    e.getArgSpec() instanceof OptionSpec ? ((OptionSpec) e.getArgSpec()).longestName() + ": " : "";
            message = option + e.getCause().getMessage();
        } else if (e instanceof UnmatchedArgumentException) {
            String token = ((UnmatchedArgumentException) e).getUnmatched().get(0);
            boolean option = token.startsWith("-");
            CommandSpec spec = command.getCommandSpec();
            if (!option && !spec.subcommands().isEmpty()) {
                message = "unknown command '" + token + "'";
            } else if (!option) {
                // picocli's says where, counted in the words after the command's name: not where the user sees it
                List<String> unmatched = ((UnmatchedArgumentException) e).getUnmatched();
                message = (unmatched.size() == 1 ? "unexpected argument '" : "unexpected arguments '")
                        + String.join("', '", unmatched) + "'";
            }
            // By edit distance: picocli offers only the options that share the first two letters.
            List<String> nearest = option
                    ? NearestNames.nearest(
                            token.split("=", 2)[0], spec.optionsMap().keySet())
                    : NearestNames.nearest(token, spec.subcommands().keySet());
            String launched = option ? launchedBefore(command, token, args) : null;
            if (launched != null) {
                // It follows the launched command's first word (run java -version): an option of that command,
                // which needs -- before the command, not the nearest of run's own options.
                message += "; put -- before the command to launch: perfpin run [options] -- " + launched + " ...";
            } else if (!nearest.isEmpty()) {
                message += "; did you mean " + String.join(", ", nearest) + "?";
            }
        }
        String name = command.getCommandSpec().qualifiedName();
        command.getErr().println(shown(name + ": " + message + " (see " + name + " --help)"));
        return ExitCode.USAGE;
    }

    /** For run, the first word of the command to launch when it comes before the unknown {@code option}; else null. */
    private static String launchedBefore(CommandLine command, String option, String[] args) {
        if (!(command.getCommand() instanceof RunCommand) || ((RunCommand) command.getCommand()).command == null) {
            return null;
        }
        String first = ((RunCommand) command.getCommand()).command.get(0);
        List<String> words = List.of(args);
        int at = words.indexOf(first);
        return at >= 0 && at < words.indexOf(option) ? first : null;
    }

    /**
     * A message as the terminal shows it: the user's text quoted in it cannot drive the terminal, and a URL's
     * credentials (refused, but quoted in the refusal) are masked.
     */
    private static String shown(String message) {
        return TerminalText.escape(UrlText.masked(message));
    }

    /** One line, never a stack trace: a bad value is a usage error, anything else a failure. */
    private static int report(Exception e, CommandLine command, CommandLine.ParseResult parsed) {
        command.getErr().println(failure(command.getCommandSpec().qualifiedName(), e));
        return exitCode(e);
    }

    /** The one line that says how {@code command} (perfpin and its name) failed: {@code e}'s message. */
    static String failure(String command, Exception e) {
        return shown(command + ": " + e.getMessage());
    }

    /** The exit code of a command that failed with {@code e}: an undone attach by what failed it. */
    static int exitCode(Exception e) {
        if (e instanceof AttachUndoneException) {
            e = (Exception) e.getCause();
        }
        if (e instanceof AttachException) {
            return switch (((AttachException) e).category()) {
                case NO_SUCH_PROCESS -> ExitCode.NO_SUCH_PROCESS;
                case PERMISSION_DENIED -> ExitCode.PERMISSION_DENIED;
                case AGENT_LOAD_FAILED, ATTACH_REFUSED -> ExitCode.ATTACH_FAILED;
                default -> ExitCode.NOT_A_JVM;
            };
        }
        if (e instanceof ProcessChangedException) {
            return ((ProcessChangedException) e).exited() ? ExitCode.NO_SUCH_PROCESS : ExitCode.PROCESS_CHANGED;
        }
        if (e instanceof NoAgentException) {
            return ExitCode.NO_AGENT;
        }
        if (e instanceof AgentNotStartedException) {
            return ExitCode.ATTACH_FAILED;
        }
        return e instanceof IllegalArgumentException ? ExitCode.USAGE : ExitCode.FAILURE;
    }
}
