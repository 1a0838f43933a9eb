package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.options.ListenAddress;
import io.perfpin.options.OptionLimits;
import io.perfpin.options.OtlpEndpoint;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The shared options' parsing, the one-line usage errors, and the completion script. */
class CommandLineTest {

    @Test
    void eachBadValueIsOneLineNamingTheOptionTheTokenAndWhatIsAllowedWithExitCode2() {
        assertUsage(
                "perfpin top: --interval: bad duration '5x': expected a positive whole number with a unit: ns, us,"
                        + " ms, s or m (e.g. 500ms, 5s) (see perfpin top --help)",
                "top",
                "1",
                "--interval",
                "5x");
        assertUsage(
                "perfpin stat: --duration: bad duration '0s': expected a positive whole number with a unit: ns,"
                        + " us, ms, s or m (e.g. 500ms, 5s) (see perfpin stat --help)",
                "stat",
                "--pid",
                "1",
                "--duration",
                "0s");
        assertUsage(
                "perfpin stat: --threads: bad thread regex 'io-(': not a regular expression (missing closing ):"
                        + " `io-(`) (see perfpin stat --help)",
                "stat",
                "--pid",
                "1",
                "--threads",
                "io-(");
        assertUsage(
                "perfpin report: --format: bad format 'xml': expected table, csv, json or html (see perfpin report"
                        + " --help)",
                "report",
                "f.jsonl",
                "--format",
                "xml");
        assertUsage(
                "perfpin stat: Unknown options: '--treads', 'x'; did you mean --threads? (see perfpin stat --help)",
                "stat",
                "1",
                "--treads",
                "x");
        assertUsage("perfpin: unknown command 'lsit'; did you mean list? (see perfpin --help)", "lsit");
        // no word at all: every command is built, as for a mistyped one
        assertUsage("perfpin: Missing required subcommand (see perfpin --help)");
        assertUsage(
                "perfpin stat: --pin: bad pin rule 'io-1': expected REGEX@PLACEMENT, PLACEMENT being a CPU list"
                        + " like 2-3, isolated, core or any (see perfpin stat --help)",
                "stat",
                "--pid",
                "1",
                "--pin",
                "io-1");
    }

    @Test
    void numbersPastTheirBoundsAndOverlongValuesAreOneLineWithExitCode2() {
        assertUsage(
                "perfpin stat: --duration: bad duration '999999999999m': too large (at most 525600m, a year) (see"
                        + " perfpin stat --help)",
                "stat",
                "--pid",
                "1",
                "--duration",
                "999999999999m");
        assertUsage(
                "perfpin top: --interval: bad duration '99999999999999999999999ns': too large (at most 525600m,"
                        + " a year) (see perfpin top --help)",
                "top",
                "1",
                "--interval",
                "99999999999999999999999ns");
        assertUsage(
                "perfpin stat: --pin: bad pin rule 'io@0-99999999999': bad placement '0-99999999999': bad CPU list"
                        + " token '0-99999999999' in \"0-99999999999\": expected CPUs up to 1048575 (see perfpin"
                        + " stat --help)",
                "stat",
                "--pid",
                "1",
                "--pin",
                "io@0-99999999999");
        assertUsage(
                "perfpin stat: --threads: bad thread regex '(a)\\1': not a regular expression (invalid escape"
                        + " sequence: `\\1`; perfpin's regexes are RE2's, without backreferences, lookaround or"
                        + " possessive quantifiers) (see perfpin stat --help)",
                "stat",
                "--pid",
                "1",
                "--threads",
                "(a)\\1");
        String regex = "x".repeat(5000);
        assertUsage(
                "perfpin stat: --threads: bad thread regex '" + "x".repeat(40) + "... (5000 characters)': too long"
                        + " (5000 characters; at most 4096) (see perfpin stat --help)",
                "stat",
                "--pid",
                "1",
                "--threads",
                regex);
        List<String> pins = new ArrayList<>(List.of("stat", "--pid", "1"));
        for (int i = 0; i <= OptionLimits.MAX_PIN_RULES; i++) {
            pins.addAll(List.of("--pin", "t-" + i + "@0"));
        }
        assertUsage(
                "perfpin stat: too many --pin rules (65; at most 64) (see perfpin stat --help)",
                pins.toArray(new String[0]));
    }

    @Test
    void theExportsFlagsAreTheAgentsOptionsAndTheirBadValuesAreOneLineWithExitCode2() {
        assertUsage(
                "perfpin run: --prometheus: bad address '70000': the port must be a number from 1 to 65535;"
                        + " expected " + ListenAddress.ALLOWED + " (see perfpin run --help)",
                "run",
                "--prometheus",
                "70000",
                "--",
                "java",
                "-version");
        assertUsage(
                "perfpin attach: --otlp: bad URL 'https://collector:4318': expected " + OtlpEndpoint.ALLOWED
                        + " (see perfpin attach --help)",
                "attach",
                "1",
                "--otlp",
                "https://collector:4318");
        assertUsage(
                "perfpin run: --otlp-interval: bad duration '5x': expected a positive whole number with a unit:"
                        + " ns, us, ms, s or m (e.g. 500ms, 5s) (see perfpin run --help)",
                "run",
                "--otlp-interval",
                "5x",
                "--",
                "java",
                "-version");
        AgentSettings settings = new AgentSettings();
        new CommandLine(settings)
                .parseArgs(
                        "--events",
                        "page-faults",
                        "--prometheus",
                        "9464",
                        "--otlp",
                        "http://127.0.0.1:4318",
                        "--otlp-interval",
                        "2s",
                        "--export-threads",
                        "disruptor-.*");
        assertEquals(
                "events=page-faults;prometheus=127.0.0.1:9464;otlp=http://127.0.0.1:4318/v1/metrics;"
                        + "otlp-interval=2000000000ns;export-threads=disruptor-.*;quiet",
                settings.agentOptions());
        AgentSettings virtual = new AgentSettings();
        new CommandLine(virtual).parseArgs("--threads", "main", "--virtual", "request-.*");
        assertEquals("threads=main;virtual=request-.*;events=sched;quiet", virtual.agentOptions());
        AgentSettings bounded = new AgentSettings();
        new CommandLine(bounded).parseArgs("--virtual", "request-.*", "--virtual-max", "5000");
        assertEquals("virtual=request-.*;virtual-max=5000;events=sched;quiet", bounded.agentOptions());
        assertUsage(
                "perfpin run: --virtual-max: bad count '0': expected a whole number of virtual threads from 1 to"
                        + " 10000000 (see perfpin run --help)",
                "run",
                "--virtual-max",
                "0",
                "--",
                "java",
                "-version");
        assertUsage(
                "perfpin run: --virtual: bad thread regex '(': not a regular expression (missing closing ): `(`)"
                        + " (see perfpin run --help)",
                "run",
                "--virtual",
                "(",
                "--",
                "java",
                "-version");
    }

    /** Refused, and the refusal, on a terminal other users may watch or in a log, shows them masked. */
    @Test
    void aUrlWithCredentialsIsRefusedWithoutShowingThem() {
        assertUsage(
                "perfpin run: --otlp: bad URL 'http://***@collector:4318': credentials in the URL would show in"
                        + " the agent's options; expected " + OtlpEndpoint.ALLOWED + " (see perfpin run --help)",
                "run",
                "--otlp",
                "http://user:s3cret@collector:4318",
                "--",
                "java",
                "-version");
        assertUsage(
                "perfpin attach: --otlp: bad URL '***@collector:4318': expected " + OtlpEndpoint.ALLOWED
                        + " (see perfpin attach --help)",
                "attach",
                "1",
                "--otlp",
                "user:s3cret@collector:4318");
        CliRun unknown =
                CliRun.capture(() -> Perfpin.run("attach", "1", "--otlp-url=http://user:s3cret@collector:4318"));
        assertEquals(ExitCode.USAGE, unknown.code, unknown.err);
        assertTrue(unknown.err.contains("http://***@collector:4318") && !unknown.err.contains("s3cret"), unknown.err);
    }

    @Test
    void aMessageQuotesControlCharactersEscaped() {
        assertUsage(
                "perfpin stat: --threads: bad thread regex 'a\\tb\\x1b\\u202e(': not a regular expression (missing"
                        + " closing ): `a\\tb\\x1b\\u202e(`) (see perfpin stat --help)",
                "stat",
                "--pid",
                "1",
                "--threads",
                "a\tb\u001b\u202e(");
        assertUsage("perfpin: unknown command 'x\\x1b[2J\\ny' (see perfpin --help)", "x\u001b[2J\ny");
    }

    /** The java command's own options need -- before it: suggesting run's option of a like name would mislead. */
    @Test
    void anUnknownOptionAfterRunsCommandSaysThatDashDashGoesBeforeTheCommand() {
        assertUsage(
                "perfpin run: Unknown option: '-version'; put -- before the command to launch: perfpin run"
                        + " [options] -- java ... (see perfpin run --help)",
                "run",
                "java",
                "-version");
        assertUsage(
                "perfpin run: Unknown option: '--treads'; did you mean --threads? (see perfpin run --help)",
                "run",
                "--treads",
                "x",
                "--",
                "java",
                "-version");
    }

    @Test
    void wordsACommandDoesNotTakeAreNamedWithoutAPosition() {
        assertUsage("perfpin attach: unexpected argument '456' (see perfpin attach --help)", "attach", "123", "456");
        assertUsage("perfpin list: unexpected arguments 'foo', 'bar' (see perfpin list --help)", "list", "foo", "bar");
    }

    /** perfpin --help lists each command with its description's first line: a whole sentence. */
    @Test
    void eachCommandsLineInTheHelpIsAWholeSentence() {
        CommandLine perfpin = Perfpin.commandLine();
        perfpin.getSubcommands().forEach((name, command) -> {
            String[] description = command.getCommandSpec().usageMessage().description();
            if (name.equals("help") || name.equals("completion")) {
                return;
            }
            assertTrue(
                    description.length > 0 && description[0].matches(".*[.]"),
                    name + ": " + String.join("|", description));
        });
        CliRun help = CliRun.capture(() -> Perfpin.run("--help"));
        assertTrue(help.out.contains("or encode events.\n"), "the events line whole: " + help.out);
    }

    @Test
    void picocliLooksForNoGroovyClosures() {
        Perfpin.commandLine();
        assertTrue(Boolean.getBoolean("picocli.disable.closures"), "set as Perfpin is initialised");
    }

    /**
     * picocli leaves out its built-in converters of {@link Perfpin#UNUSED_CONVERTERS}: an option of such a type must
     * bring its own, or picocli would refuse every value of it.
     */
    @Test
    void everyOptionOfATypeWhoseBuiltInConverterIsLeftOutHasItsOwn() {
        List<String> checked = new ArrayList<>();
        List<CommandLine> commands = new ArrayList<>(List.of(Perfpin.commandLine()));
        while (!commands.isEmpty()) {
            CommandLine command = commands.remove(commands.size() - 1);
            commands.addAll(command.getSubcommands().values());
            for (CommandLine.Model.ArgSpec arg : command.getCommandSpec().args()) {
                // the type, or what a list, a map, an optional or an array holds, which picocli converts
                List<Class<?>> types = new ArrayList<>(List.of(arg.type()));
                types.addAll(List.of(arg.auxiliaryTypes()));
                for (Class<?> type : types) {
                    Class<?> converted = type.isArray() ? type.getComponentType() : type;
                    if (converted.getName().matches(Perfpin.UNUSED_CONVERTERS)) {
                        assertTrue(
                                arg.converters().length > 0,
                                command.getCommandSpec().qualifiedName() + " " + arg.paramLabel() + ": "
                                        + converted.getName());
                        checked.add(converted.getName());
                    }
                }
            }
        }
        assertTrue(checked.contains("java.time.Duration"), "the durations are among those checked: " + checked);
    }

    /** A command is parsed alone, without perfpin around it: its usage and version are perfpin's all the same. */
    @Test
    void eachCommandsHelpAndVersionNameItAsPerfpinsCommand() {
        for (String command : new String[] {"stat", "attach", "report", "top"}) {
            CliRun help = CliRun.capture(() -> Perfpin.run(command, "--help"));
            assertEquals(ExitCode.OK, help.code, help.err);
            assertTrue(help.out.startsWith("Usage: perfpin " + command + " ["), help.out);
            CliRun version = CliRun.capture(() -> Perfpin.run(command, "-V"));
            assertEquals(ExitCode.OK, version.code, version.err);
            assertEquals(CliRun.capture(() -> Perfpin.run("--version")).out, version.out);
            assertTrue(version.out.startsWith("perfpin "), version.out);
        }
    }

    @Test
    void completionPrintsABashScriptThatKnowsTheCommandsAndTheirOptions() {
        CliRun run = CliRun.capture(() -> Perfpin.run("completion"));
        assertEquals(ExitCode.OK, run.code, run.err);
        assertTrue(run.out.contains("complete -F _complete_perfpin"), run.out);
        for (String word : new String[] {"report", "top", "list", "stat", "--threads", "--pin", "--format"}) {
            assertTrue(run.out.contains(word), word);
        }
        CliRun help = CliRun.capture(() -> Perfpin.run("--help"));
        assertTrue(help.out.contains("  completion  "), help.out);
    }

    /**
     * Every command that prints a table checks its --columns and --sort names with the command line: a misspelt one
     * is one line naming it, what is allowed and the nearest names, exit 2, before the target (pid 1, which none of
     * them could count) is looked at; an identity column named in --columns is refused with why, not dropped.
     */
    @Test
    void eachTableCommandRefusesAnUnknownColumnOrSortKeyNamingItAndWhatIsAllowedWithExitCode2() {
        String values = "an event (perfpin events lists them) or a metric: ipc, cpi, cache-miss-ratio,";
        for (List<String> target : List.of(
                List.of("top", "1"),
                List.of("attach", "1"),
                List.of("stat", "1"),
                List.of("report", "f.jsonl"),
                List.of("demo"),
                List.of("run", "--", "java", "-version"))) {
            String command = target.get(0);
            assertUsageStarts(
                    "perfpin " + command + ": --columns: unknown column 'taks-clock': expected " + values,
                    "; did you mean task-clock? (see perfpin " + command + " --help)",
                    target,
                    "--columns",
                    "ipc,taks-clock");
            assertUsageStarts(
                    "perfpin " + command + ": --sort: unknown sort column 'ipcc': expected thread, tid, " + values,
                    "; did you mean ipc? (see perfpin " + command + " --help)",
                    target,
                    "--sort",
                    "ipcc");
        }
        assertUsageStarts(
                "perfpin stat: --columns: column 'state' is not chosen: thread, tid, cpus, cpu, state are shown"
                        + " wherever they apply; --columns chooses the values: " + values,
                " (see perfpin stat --help)",
                List.of("stat", "1"),
                "--columns",
                "task-clock,state");
        // An event's other spelling names its column as the table heads it.
        CommandLine line = new CommandLine(new StatCommand());
        line.parseArgs("1", "--columns", "cpu-cycles,ipc", "--sort", "cpu-cycles");
        ViewOptions view = ((StatCommand) line.getCommand()).view;
        assertEquals(List.of("cycles", "ipc"), view.columns);
        assertEquals("cycles", view.sort);
    }

    /**
     * A --columns event or metric that the selected events do not give is refused, with the events that would, by
     * every command that selects them, before anything is started or looked at (stat's pid 1 is not): shown, it could
     * only be empty, and it was once dropped without a word.
     */
    @Test
    void aColumnTheSelectedEventsDoNotGiveIsRefusedWithTheEventsThatWould() throws Exception {
        assertUsage(
                "perfpin stat: --columns cache-misses: --events sched does not count it; add it: --events"
                        + " sched,cache-misses",
                "stat",
                "1",
                "--columns",
                "task-clock,cache-misses,LLC-mpki");
        assertUsage(
                "perfpin run: --columns LLC-mpki: --events sched,cache-misses does not count it; add its preset:"
                        + " --events sched,cache-misses,cache",
                "run",
                "--events",
                "sched,cache-misses",
                "--columns",
                "cache-misses,LLC-mpki",
                "--",
                "java",
                "-version");
        assertUsage(
                "perfpin demo: --columns dTLB-mpki: --events ipc,sched does not count it; add its preset: --events"
                        + " ipc,sched,tlb",
                "demo",
                "--columns",
                "ipc,dTLB-mpki");
        // --sort likewise: the rows were once left unsorted without a word
        assertUsage(
                "perfpin stat: --sort ipc: --events sched does not count it; add it: --events sched,ipc",
                "stat",
                "1",
                "--sort",
                "ipc");
        try (ChildJvm service = ChildJvm.start("io.perfpin.apps.Service", "1", "120")) {
            service.await(Pattern.compile("ready"));
            assertUsage(
                    "perfpin attach: --columns cache-misses: --events sched does not count it; add it: --events"
                            + " sched,cache-misses",
                    "attach",
                    Long.toString(service.pid()),
                    "--columns",
                    "cache-misses");
            assertFalse(ProcFiles.maps(service.pid(), "libinstrument.so"), "no agent was loaded");
        }
    }

    /** A PID that is no whole number from 1 is said as what it is, by every command that takes one. */
    @Test
    void aPidThatIsNoNumberIsSaidAsNoProcessId() {
        String what =
                "' is no process id: expected a whole number from 1 (perfpin list shows your JVMs)" + " (see perfpin ";
        assertUsage("perfpin stat: 'abc" + what + "stat --help)", "stat", "abc");
        assertUsage("perfpin stat: --pid: '0" + what + "stat --help)", "stat", "--pid", "0");
        assertUsage("perfpin attach: '-5" + what + "attach --help)", "attach", "-5");
        assertUsage("perfpin detach: 'x1" + what + "detach --help)", "detach", "x1");
        assertUsage("perfpin top: '12ab" + what + "top --help)", "top", "12ab");
    }

    /** The tokens that name no file and no count are quoted, and a count says its limits. */
    @Test
    void anEmptyOutputAndACountPastTheLimitAreSaidWithTheTokenAndWhatIsAllowed() {
        assertUsage("perfpin top: --output '': an empty name; expected a file to write", "top", "1", "--output", "");
        assertUsage(
                "perfpin top: --top: bad count '99999999999': expected a whole number of threads, from 1 to 2147483647"
                        + " (see perfpin top --help)",
                "top",
                "1",
                "--top",
                "99999999999");
    }

    /** {@code command}'s {@code target} with {@code options}: exit 2, one line, its start and end as given. */
    private static void assertUsageStarts(String start, String end, List<String> target, String... options) {
        List<String> args = new ArrayList<>(target);
        // run's options come before the command it launches
        args.addAll(target.get(0).equals("run") ? 1 : args.size(), List.of(options));
        CliRun run = CliRun.capture(() -> Perfpin.run(args.toArray(String[]::new)));
        assertEquals(ExitCode.USAGE, run.code, run.err);
        assertEquals(1, run.err.lines().count(), run.err);
        assertTrue(run.err.startsWith(start) && run.err.endsWith(end + "\n"), run.err);
    }

    private static void assertUsage(String line, String... args) {
        CliRun run = CliRun.capture(() -> Perfpin.run(args));
        assertEquals(ExitCode.USAGE, run.code, run.err);
        assertEquals(line + "\n", run.err);
    }
}
