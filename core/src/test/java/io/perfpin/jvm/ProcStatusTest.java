package io.perfpin.jvm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Status files of real processes, copied from /proc. */
class ProcStatusTest {
    private static final List<Integer> ROOT = List.of(0, 0, 0, 0);

    @Test
    void aJvmCatchesSigquit() throws IOException {
        assertEquals(
                new ProcStatus("java", false, ROOT, ROOT, 26631, false, true, List.of()),
                parse("status-jvm17.txt", 26631));
    }

    @Test
    void sleepDoesNotAndWouldDieOfIt() throws IOException {
        assertEquals(
                new ProcStatus("sleep", false, ROOT, ROOT, 26988, false, false, List.of()),
                parse("status-sleep.txt", 26988));
    }

    @Test
    void aShellTrapCatchesSigquitToo() throws IOException {
        assertEquals(
                new ProcStatus("bash", false, ROOT, ROOT, 26989, false, true, List.of()),
                parse("status-bash-trap-quit.txt", 26989));
    }

    @Test
    void aJvmInItsOwnPidNamespaceSeesItselfAsPid1AndWithXrsHandlesNoSigquit() throws IOException {
        assertEquals(
                new ProcStatus("java", false, ROOT, ROOT, 1, true, false, List.of()),
                parse("status-jvm25-xrs-pid-namespace.txt", 26639));
    }

    @Test
    void supplementaryGroupsAreKeptForAHelperThatActsAsTheProcess() throws IOException {
        ProcStatus status = parse("status-cat-groups.txt", 1);
        assertEquals(65534, status.effectiveUid());
        assertEquals(65534, status.effectiveGid());
        assertEquals(List.of(4, 24), status.groups());
    }

    /**
     * The kernel escapes a line break in a process's name, not a carriage return: one there must not begin a line
     * that a kernel without {@code NSpid:} (before 4.1) would take for its own.
     */
    @Test
    void aCarriageReturnInTheNameBeginsNoField() {
        ProcStatus status = ProcStatus.parse(
                "Name:\tx\rNSpid:\t7\t1\nState:\tS (sleeping)\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n", 42);
        assertEquals("x\rNSpid:\t7\t1", status.command());
        assertEquals(42, status.namespacePid());
        assertEquals(false, status.nestedPidSpace());
    }

    private static ProcStatus parse(String fixture, long pid) throws IOException {
        return ProcStatus.parse(ThreadDumpFixtureTest.resource(fixture), pid);
    }
}
