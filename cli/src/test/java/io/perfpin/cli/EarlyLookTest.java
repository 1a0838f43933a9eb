package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.jvm.JavaThreadInfo;
import io.perfpin.jvm.ThreadDump;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class EarlyLookTest {
    @Test
    void onlyADecimalPidRightAfterStatIsAGuess() {
        assertEquals(1234, EarlyLook.guess(new String[] {"stat", "1234", "--duration", "1s"}));
        assertEquals(-1, EarlyLook.guess(new String[] {"stat"}));
        assertEquals(-1, EarlyLook.guess(new String[] {"stat", "--fds", "100", "1234"}));
        assertEquals(-1, EarlyLook.guess(new String[] {"stat", "--pid", "1234"}));
        assertEquals(-1, EarlyLook.guess(new String[] {"stat", "+12"}));
        assertEquals(-1, EarlyLook.guess(new String[] {"stat", "0"}));
        assertEquals(-1, EarlyLook.guess(new String[] {"stat", "99999999999"}));
        assertEquals(-1, EarlyLook.guess(new String[] {"stat", ""}));
    }

    @Test
    void aJvmWhoseListenerRunsIsLookedAtAndTakenForItsPidAlone() throws Exception {
        try (ChildJvm service = ChildJvm.start("io.perfpin.apps.Service", "2", "120")) {
            service.await(Pattern.compile("ready"));
            String pid = Long.toString(service.pid());

            // No listener yet: the early look sends no signal and gives nothing, and stat looks itself.
            EarlyLook.plan(new String[] {"stat", pid}).run();
            assertNull(EarlyLook.take(service.pid()));

            ThreadDump.of(service.pid()); // starts the listener, as any earlier tool would have
            EarlyLook.plan(new String[] {"stat", pid}).run();
            assertNull(EarlyLook.take(service.pid() + 1), "a look at another pid is not taken");
            EarlyLook.plan(new String[] {"stat", pid}).run();
            EarlyLook.Look look = EarlyLook.take(service.pid());
            assertNotNull(look);
            List<String> names =
                    look.watch().initial().stream().map(JavaThreadInfo::name).collect(Collectors.toList());
            assertTrue(names.containsAll(List.of("worker-0", "worker-1")), names.toString());
            look.process().check(); // the identity is the service's
            assertNull(EarlyLook.take(service.pid()), "taken once");
        }
    }
}
