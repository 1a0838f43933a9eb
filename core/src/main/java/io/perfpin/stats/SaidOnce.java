package io.perfpin.stats;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one rule for what is said once, wherever perfpin speaks (the agent's stderr and its stats file, a viewer's
 * output, the JMH profiler's notes): a notice of the same {@link AgentNotice.Kind kind} about the same
 * {@link AgentNotice#subject subject} as one said before is not said again. A failure that keeps coming is said
 * once however its exception reads each time; its every occurrence is for a log, not for the user's terminal.
 * Safe on any thread.
 */
public final class SaidOnce {
    /**
     * The most different information and refusals said: a pool whose threads each meet one naming them (a pin refused,
     * a placement's CPUs) would otherwise fill the application's stderr, and this set, without end. Failures and events
     * not counted have few subjects (a step, an event) and are said past it.
     */
    public static final int MAX_SAID = 500;

    /** Said once, in place of the first notice past {@link #MAX_SAID}. */
    public static final AgentNotice NO_MORE = AgentNotice.info("more than " + MAX_SAID + " different notices: later"
            + " ones are not said, but for failures and events not counted");

    private record Key(AgentNotice.Kind kind, String subject) {}

    private final Set<Key> said = ConcurrentHashMap.newKeySet();
    /** The information and refusals among them, which {@link #MAX_SAID} bounds. */
    private final AtomicInteger bounded = new AtomicInteger();

    /** 1 once said: not an AtomicBoolean, whose first use looks up a VarHandle as the agent starts. */
    private final AtomicInteger toldNoMore = new AtomicInteger();

    /**
     * What to say for {@code notice}: itself the first time a notice like it is offered; {@link #NO_MORE} in place of
     * the first new information or refusal past {@link #MAX_SAID}; null for anything said before, and for every later
     * new one of those.
     */
    public AgentNotice toSay(AgentNotice notice) {
        Key key = new Key(notice.kind(), notice.subject());
        boolean fewSubjects =
                notice.kind() == AgentNotice.Kind.FAILURE || notice.kind() == AgentNotice.Kind.NOT_COUNTED;
        if (fewSubjects || said.contains(key)) {
            return said.add(key) ? notice : null;
        }
        if (bounded.incrementAndGet() > MAX_SAID) {
            bounded.decrementAndGet();
            return toldNoMore.compareAndSet(0, 1) ? NO_MORE : null;
        }
        if (said.add(key)) {
            return notice;
        }
        bounded.decrementAndGet(); // another thread said it first
        return null;
    }

    /** Everything may be said again, as to a new listener. */
    public void forget() {
        said.clear();
        bounded.set(0);
        toldNoMore.set(0);
    }
}
