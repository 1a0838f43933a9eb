package io.perfpin.agent.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.perfpin.counter.DescriptorBudget;
import io.perfpin.event.EventList;
import io.perfpin.event.EventParser;
import io.perfpin.nativeio.Backends;
import io.perfpin.report.MethodRecord;
import io.perfpin.testkit.PerfEventDescriptors;
import io.perfpin.testkit.Threads;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** A @Counted method's counters at detach: what a thread holds is closed, and nothing opens after. */
class MethodCountingTest {
    @Test
    void detachClosesACallersCountersAndNothingOpensAfterIt() throws Exception {
        EventList events = EventList.parse("task-clock,page-faults", new EventParser());
        DescriptorBudget budget = DescriptorBudget.unbounded();
        MethodCounting methods = new MethodCounting(Backends.syscalls(), events, budget);
        int id = methods.register("Work.run", null);
        long before = PerfEventDescriptors.ofThisProcess();
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch detached = new CountDownLatch(1);
        Object[] tokens = new Object[2];
        Thread caller = new Thread(
                () -> {
                    tokens[0] = methods.entering(id);
                    inside.countDown();
                    try {
                        Threads.await(detached);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    methods.exited(id, tokens[0]); // its counters closed under it: nothing read, nothing recorded
                },
                "inside-at-detach");
        caller.start();
        try {
            Threads.await(inside);
            assertNotNull(tokens[0], "counted");
            assertEquals(before + 2, PerfEventDescriptors.ofThisProcess(), "its two events");
            methods.close();
            assertEquals(
                    before, PerfEventDescriptors.ofThisProcess(), "closed at detach while it was inside the method");
            assertEquals(0, budget.held());
        } finally {
            detached.countDown();
            Threads.join(caller);
        }

        // A thread whose call read the hooks just before detach took them off comes in after it.
        Thread late = new Thread(() -> tokens[1] = methods.entering(id), "after-detach");
        late.start();
        Threads.join(late);
        assertNull(tokens[1], "not counted");
        assertEquals(before, PerfEventDescriptors.ofThisProcess(), "no counter opened after detach");
        List<MethodRecord> summaries = new ArrayList<>();
        methods.publish(System.currentTimeMillis(), true, (list, summary) -> summaries.add(summary));
        assertEquals(0, summaries.get(0).calls(), "the call cut by detach is not recorded");
    }

    /** A class woven again (retransformed) registers its methods again: each keeps its one id and summary. */
    @Test
    void aMethodWovenAgainKeepsItsIdAndOneSummary() {
        EventList events = EventList.parse("task-clock", new EventParser());
        EventList other = EventList.parse("page-faults", new EventParser());
        MethodCounting methods = new MethodCounting(Backends.syscalls(), events, DescriptorBudget.unbounded());
        int id = methods.register("Work.run()", null);
        assertEquals(id, methods.register("Work.run()", null), "woven again");
        assertEquals(id + 1, methods.register("Work.run()", other), "other events: a method of its own");
        List<MethodRecord> summaries = new ArrayList<>();
        methods.publish(System.currentTimeMillis(), true, (list, summary) -> summaries.add(summary));
        assertEquals(2, summaries.size(), summaries.toString());
    }
}
