package io.perfpin.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.cpu.Placement;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.profile.ProfilerException;

/** -prof perfpin's option line: JMH's syntax, perfpin's words and checks, one line for each mistake. */
class ProfilerOptionsTest {
    @Test
    void noOptionsCountTheWorkersIpcAndSchedUnpinnedWithTheAgent() throws Exception {
        ProfilerOptions options = ProfilerOptions.parse("");
        assertEquals(
                "cycles,instructions,task-clock,context-switches,cpu-migrations,page-faults,minor-faults,"
                        + "major-faults",
                String.join(
                        ",",
                        options.events().events().stream().map(e -> e.name()).toArray(String[]::new)));
        assertTrue(
                options.threads().matches("org.openjdk.jmh.samples.JMHSample_22_FalseSharing.baseline-jmh-worker-2"));
        assertFalse(options.threads().matches("main"));
        assertNull(options.pin());
        assertFalse(options.perThread());
        assertTrue(options.agent());
    }

    @Test
    void theIssuesExampleReadsAsWritten() throws Exception {
        ProfilerOptions options =
                ProfilerOptions.parse("events=ipc,sched;pin=core;threads=worker;perThread=true;" + "agent=false");
        assertEquals(Placement.CORE, options.pin());
        assertTrue(options.threads().matches("worker"));
        assertTrue(options.perThread());
        assertFalse(options.agent());
        assertNull(ProfilerOptions.parse("threads=all").threads(), "every thread");
    }

    @Test
    void helpIsLaidOutAsJmhLaysOutItsProfilersOptions() {
        String help = assertThrows(ProfilerException.class, () -> ProfilerOptions.parse("help"))
                .getMessage();
        assertTrue(
                help.startsWith("Usage: -prof <profiler-name>:opt1=value1,value2;opt2=value3\n\nOptions accepted by"
                        + " perfpin:\n\n  events=<list>                    Events and presets to count"),
                help);
        assertTrue(help.contains("\n\n  pin=<core|isolated|cpus>         Pin each worker thread"), help);
        assertTrue(help.replaceAll("\\s+", " ").contains("(default: [ipc,sched])"), help);
        assertTrue(help.contains("\n  help                             Display help."), help);
    }

    @Test
    void eachMistakeIsOneLineNamingItsTokenThenTheHelp() {
        assertFirstLine(
                "perfpin: bad option 'bogus=1': unknown key 'bogus'; allowed: events, threads, pin, perThread,"
                        + " agent, help",
                "bogus=1");
        assertFirstLine(
                "perfpin: bad option 'pin=corr': bad placement 'corr': expected a CPU list like 2-3 or 0,4, or"
                        + " one of isolated, core, any; did you mean 'core'?",
                "pin=corr");
        assertFirstLine("perfpin: bad option 'perThread=yes': expected true or false", "perThread=yes");
        assertFirstLine(
                "perfpin: bad threads option 'threads=(a': not a regular expression (missing closing ): `(a`)",
                "threads=(a");
        assertTrue(
                firstLine("events=cycels").startsWith("perfpin: bad option 'events=cycels': unknown event 'cycels'"));
        assertTrue(
                firstLine("pin=4095")
                        .startsWith("perfpin: bad option 'pin=4095': placement 4095: CPU 4095 is" + " not online"),
                firstLine("pin=4095"));
    }

    private static void assertFirstLine(String expected, String options) {
        assertEquals(expected, firstLine(options));
    }

    private static String firstLine(String options) {
        String message = assertThrows(ProfilerException.class, () -> ProfilerOptions.parse(options))
                .getMessage();
        assertTrue(message.contains("\nUsage: -prof <profiler-name>:"), "the help follows: " + message);
        return message.substring(0, message.indexOf('\n'));
    }
}
