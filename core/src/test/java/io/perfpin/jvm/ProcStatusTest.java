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

    private static ProcStatus parse(String fixture, long pid) throws IOException {
        return ProcStatus.parse(ThreadDumpFixtureTest.resource(fixture), pid);
    }
}
