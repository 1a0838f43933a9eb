package io.perfpin.cli;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The shared options' parsing, the one-line usage errors, and the completion script. */
class CommandLineTest {

    @Test
    void eachBadValueIsOneLineNamingTheOptionTheTokenAndWhatIsAllowedWithExitCode2() {
        assertUsage("perfpin top: --interval: bad duration '5x': expected a positive whole number with a unit: ns, us,"
                + " ms, s or m (e.g. 500ms, 5s) (see perfpin top --help)", "top", "1", "--interval", "5x");
        assertUsage("perfpin stat: --duration: bad duration '0s': expected a positive whole number with a unit: ns,"
                + " us, ms, s or m (e.g. 500ms, 5s) (see perfpin stat --help)", "stat", "--pid", "1", "--duration", "0s");
        assertUsage("perfpin stat: --threads: bad thread regex 'io-(': not a regular expression (Unclosed group near"
                + " index 4) (see perfpin stat --help)", "stat", "--pid", "1", "--threads", "io-(");
        assertUsage("perfpin report: --format: bad format 'xml': expected table, csv or json (see perfpin report"
                + " --help)", "report", "f.jsonl", "--format", "xml");
        assertUsage("perfpin stat: Unknown options: '--treads', 'x'; did you mean --threads? (see perfpin stat --help)",
                "stat", "--pid", "1", "--treads", "x");
        assertUsage("perfpin: unknown command 'lsit'; did you mean list? (see perfpin --help)", "lsit");
        assertUsage("perfpin stat: --pin: bad pin rule 'io-1': expected REGEX@PLACEMENT, PLACEMENT being a CPU list"
                + " like 2-3, isolated, core or any (see perfpin stat --help)", "stat", "--pid", "1", "--pin", "io-1");
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

    private static void assertUsage(String line, String... args) {
        CliRun run = CliRun.capture(() -> Perfpin.run(args));
        assertEquals(ExitCode.USAGE, run.code, run.err);
        assertEquals(line + "\n", run.err);
    }
}
