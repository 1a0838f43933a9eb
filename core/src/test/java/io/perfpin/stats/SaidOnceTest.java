package io.perfpin.stats;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The one rule for what is said once: the same kind about the same subject. */
class SaidOnceTest {
    @Test
    void theSameKindAboutTheSameSubjectIsSaidOnce() {
        SaidOnce said = new SaidOnce();
        assertTrue(said.first(AgentNotice.refused("cannot pin thread 'a' (7)")));
        assertFalse(said.first(AgentNotice.refused("cannot pin thread 'a' (7)")));
        // the same text of another kind is another notice
        assertTrue(said.first(AgentNotice.info("cannot pin thread 'a' (7)")));
        assertTrue(said.first(AgentNotice.notCounted("cycles", "no PMU")));
        assertFalse(said.first(AgentNotice.notCounted("cycles", "another reason")), "one event, one notice");
        assertTrue(said.first(AgentNotice.notCounted("instructions", "no PMU")));
    }

    /** A step that keeps failing, each time with another exception, is one notice: said once. */
    @Test
    void aFailureIsOneNoticeWhateverItsException() {
        SaidOnce said = new SaidOnce();
        assertTrue(said.first(AgentNotice.failure("sampling failed", new IOException("File too large"))));
        assertFalse(said.first(AgentNotice.failure("sampling failed", new IOException("No space left on device"))));
        assertTrue(said.first(AgentNotice.failure("recording failed", new IOException("File too large"))));
        said.forget();
        assertTrue(said.first(AgentNotice.failure("sampling failed", new IOException("File too large"))));
    }
}
