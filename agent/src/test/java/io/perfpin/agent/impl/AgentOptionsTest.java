package io.perfpin.agent.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.perfpin.cpu.CpuSet;
import io.perfpin.cpu.Placement;
import io.perfpin.event.EventParser;
import io.perfpin.files.EffectiveUser;
import io.perfpin.options.OptionLimits;
import io.perfpin.options.VirtualMax;
import io.perfpin.report.TerminalText;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Collections;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentOptionsTest {
    /** An owner that is not this process's: root may give a link to any uid, whether a user has it or not. */
    private static final int OTHER_UID = 4242;

    private static final EventParser PARSER = new EventParser();

    @Test
    void theIssuesExampleParses() {
        AgentOptions options = AgentOptions.parse(
                "pin=disruptor-.*@0-1;pin=io-\\d+@isolated;count=.*;"
                        + "events=ipc,tlb,sched;interval=250ms;out=run.jsonl",
                PARSER);
        ThreadRules rules = options.rules();
        assertEquals(Placement.cpus(CpuSet.parseList("0-1")), rules.placementFor("disruptor-1"));
        assertEquals(Placement.ISOLATED, rules.placementFor("io-12"));
        assertNull(rules.placementFor("io-x"));
        assertTrue(rules.enrols("anything", Thread.class), "count=.* counts every thread");
        assertEquals(250_000_000L, options.intervalNanos());
        assertTrue(options.out().isAbsolute() && options.out().endsWith("run.jsonl"));
        assertFalse(options.events().presets().isEmpty());
    }

    @Test
    void defaultsCountTheApplicationsThreadsButNotTheJvmsOrPerfpins() {
        AgentOptions options = AgentOptions.parse(null, PARSER);
        ThreadRules rules = options.rules();
        assertTrue(rules.enrols("main", Thread.class));
        assertTrue(rules.enrols("pool-1-thread-1", Thread.class));
        assertFalse(rules.enrols("Common-Cleaner", Thread.class));
        assertFalse(rules.enrols("C2 CompilerThread0", Thread.class));
        assertFalse(rules.enrols("perfpin-sampler", Thread.class));
        assertTrue(rules.blindToDigitSuffix(), "the JVM's threads are told apart by name and prefix, not number");
        assertEquals(500_000_000L, options.intervalNanos());
        assertNull(options.out());
        assertEquals("25%", options.descriptors().toString(), "a quarter of the free file descriptors");
        assertEquals(
                "4000", AgentOptions.parse("fds=4000", PARSER).descriptors().toString());
        assertFalse(options.statsOff());
        assertFalse(options.detach());
    }

    /** Runs on the JDK that runs the build: the refusal on JDK 17, the rule on 21 and later. */
    @Test
    void theVirtualOptionIsARegexOnJdk21AndOneLineBefore() {
        if (Runtime.version().feature() < 21) {
            String said = assertThrows(
                            IllegalArgumentException.class, () -> AgentOptions.parse("virtual=vt-.*", PARSER))
                    .getMessage();
            assertEquals(
                    "bad option 'virtual=vt-.*': virtual threads need JDK 21 or later; this JVM is "
                            + Runtime.version().feature(),
                    said);
        } else {
            assertTrue(AgentOptions.parse("virtual=vt-.*", PARSER).virtual().matches("vt-12"));
            assertEquals(
                    VirtualMax.DEFAULT,
                    AgentOptions.parse("virtual=vt-.*", PARSER).virtualMax());
            assertEquals(
                    5000,
                    AgentOptions.parse("virtual=vt-.*;virtual-max=5000", PARSER).virtualMax());
            assertTrue(assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse("virtual=(", PARSER))
                    .getMessage()
                    .contains("virtual=("));
        }
        assertNull(AgentOptions.parse("threads=x", PARSER).virtual(), "none without the option");
    }

    @Test
    void aClassRuleCountsThreadsOfThatClassWhateverTheirName() {
        ThreadRules rules = AgentOptions.parse("class=.*WorkerThread", PARSER).rules();
        assertTrue(rules.enrols("anything", WorkerThread.class));
        assertFalse(rules.enrols("main", Thread.class), "with a class rule, the default no longer applies");
        ThreadRules both =
                AgentOptions.parse("class=.*WorkerThread;threads=io-.*", PARSER).rules();
        assertTrue(both.enrols("io-1", Thread.class));
        assertTrue(both.enrols("x", WorkerThread.class));
        assertFalse(both.blindToDigitSuffix(), "a class rule is not told by the name");
        assertTrue(AgentOptions.parse("threads=io-.*;pin=disruptor-\\d+@0", PARSER)
                .rules()
                .blindToDigitSuffix());
    }

    private static final class WorkerThread extends Thread {}

    @Test
    void theFirstMatchingPinRuleWinsAndPerfpinsThreadsAreNeverPinned() {
        ThreadRules rules = AgentOptions.parse("threads=x;pin=io-1@1;pin=io-.*@0;pin=.*@any", PARSER)
                .rules();
        assertEquals(Placement.cpus(CpuSet.of(1)), rules.placementFor("io-1"));
        assertEquals(Placement.cpus(CpuSet.of(0)), rules.placementFor("io-2"));
        assertTrue(rules.enrols("io-2", Thread.class), "a pinned thread is counted");
        assertFalse(rules.enrols("perfpin-sampler", Thread.class));
        assertFalse(rules.blindToDigitSuffix(), "io-1 and io-2 go to different CPUs");
    }

    @Test
    void aConfigFileTakesOneOptionPerLineAndItsRegexMayHoldSemicolons(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("perfpin.conf");
        Files.writeString(config, "# counted\nthreads=a;b\n\ninherit=heir-.*\nstats=off\n");
        AgentOptions options = AgentOptions.parse("config=" + config + ";events=sched", PARSER);
        assertTrue(options.rules().enrols("a;b", Thread.class));
        assertTrue(options.rules().inheritsPin("heir-1"));
        assertTrue(options.statsOff());
    }

    @Test
    void badOptionsAreOneLineNamingTheTokenAndWhatIsAllowed(@TempDir Path dir) throws Exception {
        Path nested = dir.resolve("nested.conf");
        Files.writeString(nested, "config=other.conf\n");
        String[][] cases = {
            {"bogus=1", "unknown key 'bogus'; allowed: threads, class, pin,"},
            {"pinned", "expected KEY=VALUE"},
            {"interval=5parsecs", "ns, us, ms, s or m"},
            {"pin=io@cores", "did you mean 'core'"},
            {"threads=(", "not a regular expression"},
            {"out=", "expected a file name"},
            {"events=cycels", "cycles"},
            {
                "config=" + dir.resolve("missing.conf"),
                "cannot open " + dir.resolve("missing.conf") + ": no such file or directory"
            },
            {"config=" + nested, "a config file cannot name another"},
            {
                "fds=",
                "bad option 'fds=': expected a share of the free file descriptors from 1% to 100% (e.g."
                        + " 25%), or a number of them (e.g. 4000)"
            },
            {"fds=0", "bad option 'fds=0': expected a share"},
            {"fds=150%", "bad option 'fds=150%': expected a share"},
            {"fds=half", "bad option 'fds=half': expected a share"},
            {"fds=-10", "bad option 'fds=-10': expected a share"},
            {
                "virtual-max=0",
                "bad option 'virtual-max=0': expected a whole number of virtual threads from 1 to 10000000"
            },
            {"virtual-max=1e6", "bad option 'virtual-max=1e6': expected a whole number"},
            {"virtual-max=+5", "bad option 'virtual-max=+5': expected a whole number"},
            {"virtual-max=10000001", "bad option 'virtual-max=10000001': expected a whole number"},
        };
        for (String[] c : cases) {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse(c[0], PARSER), c[0]);
            assertTrue(e.getMessage().contains(c[1]), c[0] + " -> " + e.getMessage());
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
        }
    }

    /**
     * The issue's case: a root JVM given config=/etc/shadow printed its first line. A line is quoted only from a file
     * of the JVM's user's own (of root's, only one anyone may read); a file that cannot be read is said in words.
     */
    @Test
    void aLineOfAConfigFileIsQuotedOnlyFromAFileOfTheJvmsUsersOwn(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("missing.conf");
        assertEquals(
                "bad option 'config=" + missing + "': cannot open " + missing + ": no such file or directory",
                refusal("config=" + missing));
        Path ours = Files.writeString(dir.resolve("ours.conf"), "# ours\npassword=hunter2\n");
        Files.setPosixFilePermissions(ours, PosixFilePermissions.fromString("rw-r--r--"));
        assertEquals(
                "bad option 'password=hunter2': unknown key 'password'; allowed: " + AgentOptions.KEYS,
                refusal("config=" + ours));
        assumeTrue(EffectiveUser.uid() == 0, "only root can give a file to another user");
        Path theirs = Files.copy(ours, dir.resolve("theirs.conf"));
        Files.setAttribute(theirs, "unix:uid", 4242);
        Path rootOnly = Files.copy(ours, dir.resolve("root-only.conf"));
        Files.setPosixFilePermissions(rootOnly, PosixFilePermissions.fromString("rw-------"));
        for (Path hidden : new Path[] {theirs, rootOnly}) {
            assertEquals(
                    "bad option 'config=" + hidden + "': line 2 of " + hidden + " is not a valid option (not"
                            + " shown: the file is not this user's own)",
                    refusal("config=" + hidden));
        }
    }

    private static String refusal(String options) {
        return assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse(options, PARSER))
                .getMessage();
    }

    @Test
    void aConfigFileIsNeverReachedThroughAnotherUsersLink(@TempDir Path dir) throws Exception {
        assumeTrue(EffectiveUser.uid() == 0, "only root can give a link to another user here");
        Path sticky = Files.createDirectory(dir.resolve("sticky"));
        Files.setAttribute(sticky, "unix:mode", 01777);
        Path roots = Files.writeString(dir.resolve("roots.conf"), "threads=.*\n");
        Path link = Files.createSymbolicLink(sticky.resolve("perfpin.conf"), roots);
        Files.setAttribute(link, "unix:uid", OTHER_UID, LinkOption.NOFOLLOW_LINKS);
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse("config=" + link, PARSER));
        assertEquals(
                "bad option 'config=" + link + "': cannot open " + link + ": perfpin.conf is a symbolic link of"
                        + " uid " + OTHER_UID
                        + " in a directory of uid 0; perfpin follows links only where root or you (uid 0)"
                        + " own both",
                e.getMessage());

        // root's own link, in a directory of root's, is followed
        Path own = Files.createSymbolicLink(dir.resolve("own.conf"), roots);
        assertTrue(AgentOptions.parse("config=" + own, PARSER).rules().enrols("main", Thread.class));
    }

    @Test
    void aConfigFileIsARegularFileOfBoundedSize(@TempDir Path dir) throws Exception {
        Path fifo = dir.resolve("fifo");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertTrue(mkfifo.waitFor(30, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo");
        Path big = dir.resolve("big.conf");
        Files.writeString(big, "# " + "x".repeat(AgentOptions.MAX_CONFIG_BYTES - 3) + "\n");
        assertEquals(AgentOptions.MAX_CONFIG_BYTES, Files.size(big));
        assertTrue(AgentOptions.parse("config=" + big, PARSER).rules().enrols("main", Thread.class), "64 KiB is read");
        Files.writeString(big, "#", StandardOpenOption.APPEND);
        Path latin1 = dir.resolve("latin1.conf");
        Files.write(latin1, "threads=caf\u00e9\n".getBytes(StandardCharsets.ISO_8859_1));
        String[][] cases = {
            {
                "config=/dev/zero",
                "bad option 'config=/dev/zero': /dev/zero is a character device, not a regular" + " file"
            },
            {"config=" + fifo, "bad option 'config=" + fifo + "': " + fifo + " is a FIFO, not a regular file"},
            {"config=" + dir, "bad option 'config=" + dir + "': " + dir + " is a directory, not a regular file"},
            {"config=" + big, "bad option 'config=" + big + "': " + big + " is larger than 65536 bytes"},
            {"config=" + latin1, "bad option 'config=" + latin1 + "': " + latin1 + " is not UTF-8 text"},
        };
        for (String[] c : cases) {
            IllegalArgumentException e = assertTimeoutPreemptively(
                    Duration.ofSeconds(60),
                    () -> assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse(c[0], PARSER)));
            assertEquals(c[1], e.getMessage());
        }
    }

    @Test
    void numbersPastTheirBoundsAreOneLineNeverAnOverflow() {
        assertEquals(
                "bad duration '999999999999m': too large (at most 525600m, a year)",
                assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse("interval=999999999999m", PARSER))
                        .getMessage());
        assertTrue(
                assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse("pin=a@0-99999999999999", PARSER))
                        .getMessage()
                        .endsWith("expected CPUs up to 1048575"));
    }

    @Test
    void theOptionTextAValueAndThePinRulesAreBounded() {
        String many = String.join(";", Collections.nCopies(OptionLimits.MAX_PIN_RULES + 1, "pin=a@0"));
        assertEquals(
                "too many pin rules (65; at most 64)",
                assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse(many, PARSER))
                        .getMessage());
        String longText = "threads=a;" + "x".repeat(OptionLimits.MAX_AGENT_OPTIONS_CHARS);
        assertEquals(
                "bad options 'threads=a;" + "x".repeat(30) + "... (65546 characters)': too long (65546"
                        + " characters; at most 65536)",
                assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse(longText, PARSER))
                        .getMessage());
        String longEvents = "events=" + "sched,".repeat(700) + "sched";
        assertTrue(assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse(longEvents, PARSER))
                .getMessage()
                .endsWith("': too long (4205 characters; at most 4096)"));
    }

    /** A message quotes what the user wrote as it is; the log that says it escapes it once ({@link AgentLog}). */
    @Test
    void whatAMessageQuotesIsShownWithItsControlCharactersEscaped() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> AgentOptions.parse("threads=\t\u001b\u202e\\d(", PARSER));
        assertEquals(
                "bad threads option 'threads=\\t\\x1b\\u202e\\d(': not a regular expression (missing closing ):"
                        + " `\\x1b\\u202e\\d(`)",
                TerminalText.escape(e.getMessage()));
        assertTrue(TerminalText.escape(
                        assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse("out=a\u0000b", PARSER))
                                .getMessage())
                .startsWith("bad option 'out=a\\x00b': not a file name ("));
    }
}
