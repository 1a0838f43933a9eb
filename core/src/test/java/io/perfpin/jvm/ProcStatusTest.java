package io.perfpin.jvm;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Status files of real processes, copied from /proc. */
class ProcStatusTest {
    private static final List<Integer> ROOT = List.of(0, 0, 0, 0);

    @Test
    void aJvmCatchesSigquit() throws IOException {
        assertEquals(new ProcStatus("java", false, ROOT, ROOT, 26631, false, true), parse("status-jvm17.txt", 26631));
    }

    @Test
    void sleepDoesNotAndWouldDieOfIt() throws IOException {
        assertEquals(new ProcStatus("sleep", false, ROOT, ROOT, 26988, false, false), parse("status-sleep.txt", 26988));
    }

    @Test
    void aShellTrapCatchesSigquitToo() throws IOException {
        assertEquals(new ProcStatus("bash", false, ROOT, ROOT, 26989, false, true),
                parse("status-bash-trap-quit.txt", 26989));
    }

    @Test
    void aJvmInItsOwnPidNamespaceSeesItselfAsPid1AndWithXrsHandlesNoSigquit() throws IOException {
        assertEquals(new ProcStatus("java", false, ROOT, ROOT, 1, true, false),
                parse("status-jvm25-xrs-pid-namespace.txt", 26639));
    }

    private static ProcStatus parse(String fixture, long pid) throws IOException {
        return ProcStatus.parse(ThreadDumpFixtureTest.resource(fixture).lines().toList(), pid);
    }
}
