package io.perfpin.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.perfpin.stats.AgentNotice;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The registry's notices: each said once; a failure that comes again goes to the sink's log, with its cause. */
class NoticesTest {
    private final List<AgentNotice> said = new CopyOnWriteArrayList<>();
    private final List<AgentNotice> again = new CopyOnWriteArrayList<>();
    private final Notices notices = new Notices(new NoticeSink() {
        @Override
        public void said(AgentNotice notice) {
            said.add(notice);
        }

        @Override
        public void again(AgentNotice notice) {
            again.add(notice);
        }
    });

    @Test
    void aNoticePostedManyTimesIsSaidOnce() {
        for (int i = 0; i < 100; i++) {
            notices.sayOnce(AgentNotice.refused("cannot pin thread 'worker-0' (7): CPU 7 is outside 0-1"));
        }
        assertEquals(List.of(AgentNotice.refused("cannot pin thread 'worker-0' (7): CPU 7 is outside 0-1")), said);
        assertEquals(List.of(), again, "only a failure has more to log");
    }

    @Test
    void aFailureIsSaidOnceAndLoggedEachTimeWithItsCause() {
        IOException first = new IOException("File too large");
        IOException second = new IOException("No space left on device");
        notices.failed("sampling failed", first);
        notices.failed("sampling failed", second);
        notices.failed("sampling failed", second);
        assertEquals(1, said.size(), said.toString());
        assertEquals(
                "sampling failed: java.io.IOException: File too large",
                said.get(0).text());
        assertEquals(AgentNotice.Kind.FAILURE, said.get(0).kind());
        assertSame(first, said.get(0).cause());
        assertEquals(2, again.size(), again.toString());
        assertSame(second, again.get(1).cause());
    }
}
