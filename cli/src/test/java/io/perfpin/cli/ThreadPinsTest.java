package io.perfpin.cli;

import io.perfpin.cpu.CpuSet;
import io.perfpin.cpu.Placement;
import io.perfpin.cpu.ThreadAffinity;
import io.perfpin.jvm.ProcessChangedException;
import io.perfpin.jvm.ProcessIdentity;
import io.perfpin.jvm.ThreadStartTime;
import io.perfpin.nativeio.Backends;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * ThreadPins on a worker of a service JVM, where what it recorded is not what the kernel shows: a thread whose
 * TID another thread took between the read of its start time and the pin, and a pid that names another process
 * than the one checked. Forcing either for real takes a wrap of the pid space; here the recorded start time
 * differs, and the pin, the check and the undo are the kernel's own.
 */
class ThreadPinsTest {
    private static final Pattern WORKER = Pattern.compile("thread worker-0 tid (\\d+)");

    @Test
    void aThreadWithAnotherStartTimeThanTheOneReadIsUnpinnedAtOnce() throws Exception {
        try (ChildJvm service = ChildJvm.start("io.perfpin.apps.Service", "1", "120")) {
            int tid = worker(service);
            String before = cpusBefore(service, tid);
            long startTime = ThreadStartTime.of(service.pid(), tid).orElseThrow();
            CliRun run;
            try (ThreadPins pins = new ThreadPins(Backends.syscalls(), ProcessIdentity.of(service.pid()))) {
                run = CliRun.capture(() -> {
                    IOException e = assertThrows(IOException.class,
                            () -> pins.pin(tid, startTime - 1, "worker-0", Placement.parse("0")));
                    assertEquals("thread 'worker-0' (tid " + tid + ") ended as perfpin pinned it, and its tid may"
                            + " be another thread's now", e.getMessage());
                    assertFalse(pins.isPinned(tid));
                    return 0;
                });
            }
            assertEquals("perfpin: undid the pin of tid " + tid + " at once, back to CPUs " + before + ": thread"
                    + " 'worker-0' (tid " + tid + ") ended as perfpin pinned it, and its tid may be another thread's"
                    + " now\n", run.err);
            assertEquals(before, ProcFiles.cpusAllowed(service.pid(), tid));
        }
    }

    /** What a thread dump answered by a process whose pid another process has taken since the check looks like. */
    @Test
    void aPidThatNamesAnotherProcessThanTheOneCheckedIsNotPinned() throws Exception {
        try (ChildJvm service = ChildJvm.start("io.perfpin.apps.Service", "1", "120")) {
            int tid = worker(service);
            String before = cpusBefore(service, tid);
            ProcessIdentity now = ProcessIdentity.of(service.pid());
            ProcessIdentity checked = new ProcessIdentity(now.pid(), now.command(), now.startTime() - 1, now.uids(),
                    now.gids(), now.exe());
            try (ThreadPins pins = new ThreadPins(Backends.syscalls(), checked)) {
                ProcessChangedException e = assertThrows(ProcessChangedException.class,
                        () -> pins.pin(tid, "worker-0", Placement.parse("0")));
                assertEquals("process " + service.pid() + " (java) exited, and pid " + service.pid() + " names"
                        + " another process now (java)", e.getMessage());
                assertFalse(pins.isPinned(tid));
                assertEquals(before, ProcFiles.cpusAllowed(service.pid(), tid));
            } finally {
                ThreadAffinity.system().set(tid, CpuSet.parseList(before));
            }
        }
    }

    private static int worker(ChildJvm service) throws IOException {
        Matcher worker = service.await(WORKER);
        service.await(Pattern.compile("ready"));
        return Integer.parseInt(worker.group(1));
    }

    private static String cpusBefore(ChildJvm service, int tid) {
        String before = ProcFiles.cpusAllowed(service.pid(), tid);
        assumeTrue(before.matches("0[-,].*"), "needs CPU 0 and another: " + before);
        return before;
    }
}
