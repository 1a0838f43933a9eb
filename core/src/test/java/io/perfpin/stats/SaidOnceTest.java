package io.perfpin.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SaidOnceTest {
    @Test
    void aNoticeIsSaidOnceAndAFailureOncePerStepWhateverItsException() {
        SaidOnce said = new SaidOnce();
        AgentNotice refused = AgentNotice.refused("cannot pin thread 'w-1'");
        assertSame(refused, said.toSay(refused));
        assertNull(said.toSay(AgentNotice.refused("cannot pin thread 'w-1'")), "the same kind and text");
        AgentNotice info = AgentNotice.info("cannot pin thread 'w-1'");
        assertSame(info, said.toSay(info), "another kind is another notice");
        AgentNotice failure = AgentNotice.failure("sampling", new IOException("one"));
        assertSame(failure, said.toSay(failure));
        assertNull(said.toSay(AgentNotice.failure("sampling", new IOException("two"))), "the same step");
    }

    /**
     * A pool whose threads each meet a notice naming them: the first {@value SaidOnce#MAX_SAID} are said, then once
     * that later ones are not, then nothing, however many more; a new listener hears them afresh.
     */
    @Test
    void pastItsBoundOneNoticeSaysSoAndNothingMoreIsSaid() {
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
                "more than " + SaidOnce.MAX_SAID + " different notices: later ones are not said (a log= file keeps"
                        + " every failure)",
                SaidOnce.NO_MORE.text());
        assertNull(said.toSay(AgentNotice.refused("cannot pin thread 'pool-1-thread-0'")), "said before");

        said.forget();
        AgentNotice again = AgentNotice.refused("cannot pin thread 'pool-1-thread-0'");
        assertSame(again, said.toSay(again));
    }
}
