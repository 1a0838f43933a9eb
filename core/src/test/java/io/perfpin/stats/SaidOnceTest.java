package io.perfpin.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one rule for what is said once: the same kind about the same subject; and its bound. */
class SaidOnceTest {
    @Test
    void theSameKindAboutTheSameSubjectIsSaidOnce() {
        SaidOnce said = new SaidOnce();
        AgentNotice refused = AgentNotice.refused("cannot pin thread 'a' (7)");
        assertSame(refused, said.toSay(refused));
        assertNull(said.toSay(AgentNotice.refused("cannot pin thread 'a' (7)")));
        // the same text of another kind is another notice
        AgentNotice info = AgentNotice.info("cannot pin thread 'a' (7)");
        assertSame(info, said.toSay(info));
        AgentNotice cycles = AgentNotice.notCounted("cycles", "no PMU");
        assertSame(cycles, said.toSay(cycles));
        assertNull(said.toSay(AgentNotice.notCounted("cycles", "another reason")), "one event, one notice");
        AgentNotice instructions = AgentNotice.notCounted("instructions", "no PMU");
        assertSame(instructions, said.toSay(instructions));
    }

    /** A step that keeps failing, each time with another exception, is one notice: said once. */
    @Test
    void aFailureIsOneNoticeWhateverItsException() {
        SaidOnce said = new SaidOnce();
        AgentNotice sampling = AgentNotice.failure("sampling failed", new IOException("File too large"));
        assertSame(sampling, said.toSay(sampling));
        assertNull(said.toSay(AgentNotice.failure("sampling failed", new IOException("No space left on device"))));
        AgentNotice recording = AgentNotice.failure("recording failed", new IOException("File too large"));
        assertSame(recording, said.toSay(recording));
        said.forget();
        assertSame(sampling, said.toSay(sampling));
    }

    /**
     * A pool whose threads each meet a notice naming them: the first {@value SaidOnce#MAX_SAID} are said, then once
     * that later ones are not, then none, however many more; a failure or an event not counted, whose subjects are
     * few (a step, an event), is still said; a new listener hears them afresh.
     */
    @Test
    void pastItsBoundOneNoticeSaysSoAndOnlyFailuresAndEventsAreSaidAfter() {
        SaidOnce said = new SaidOnce();
        List<AgentNotice> spoken = new ArrayList<>();
        for (int i = 0; i < 3 * SaidOnce.MAX_SAID; i++) {
            AgentNotice now = said.toSay(AgentNotice.refused("cannot pin thread 'pool-1-thread-" + i + "'"));
            if (now != null) {
                spoken.add(now);
            }
        }
        assertEquals(SaidOnce.MAX_SAID + 1, spoken.size());
        assertEquals("cannot pin thread 'pool-1-thread-0'", spoken.get(0).text());
        assertSame(SaidOnce.NO_MORE, spoken.get(SaidOnce.MAX_SAID));
        assertEquals(
                "more than " + SaidOnce.MAX_SAID + " different notices: later ones are not said, but for failures and"
                        + " events not counted",
                SaidOnce.NO_MORE.text());
        assertNull(said.toSay(AgentNotice.refused("cannot pin thread 'pool-1-thread-0'")), "said before");
        assertNull(said.toSay(AgentNotice.info("pin=core placed pool-1-thread-9999 on CPU 1")), "past the bound");
        AgentNotice failure = AgentNotice.failure("sampling failed", new IOException("No space left on device"));
        assertSame(failure, said.toSay(failure), "a failure past the bound");
        AgentNotice cycles = AgentNotice.notCounted("cycles", "no PMU");
        assertSame(cycles, said.toSay(cycles), "an event past the bound");

        said.forget();
        AgentNotice again = AgentNotice.refused("cannot pin thread 'pool-1-thread-0'");
        assertSame(again, said.toSay(again));
    }
}
