package io.perfpin.stats;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The one rule for what is said once, wherever perfpin speaks (the agent's stderr and its stats file, a viewer's
 * output, the JMH profiler's notes): a notice of the same {@link AgentNotice.Kind kind} about the same
 * {@link AgentNotice#subject subject} as one said before is not said again. A failure that keeps coming is said
 * once however its exception reads each time; its every occurrence is for a log, not for the user's terminal.
 * Safe on any thread.
 */
public final class SaidOnce {
    /**
     * The most different notices said: a pool whose threads each meet a notice of their own (a pin refused, a
     * placement, each naming its thread) would otherwise fill the application's stderr, and this set, without end.
     */
    public static final int MAX_SAID = 500;

    /** Said once, in place of the first notice past {@link #MAX_SAID}. */
    public static final AgentNotice NO_MORE = AgentNotice.info("more than " + MAX_SAID + " different notices: later"
            + " ones are not said (a log= file keeps every failure)");

    private record Key(AgentNotice.Kind kind, String subject) {}

    private final Set<Key> said = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean toldNoMore = new AtomicBoolean();

    /**
     * What to say for {@code notice}: itself the first time a notice like it is offered; {@link #NO_MORE} in place of
     * the first new one past {@link #MAX_SAID}; null for anything said before, and for every later new one.
     */
    public AgentNotice toSay(AgentNotice notice) {
        Key key = new Key(notice.kind(), notice.subject());
        if (said.size() >= MAX_SAID) { // threads that pass this at once may add a few more: still bounded
            return said.contains(key) || !toldNoMore.compareAndSet(false, true) ? null : NO_MORE;
        }
        return said.add(key) ? notice : null;
    }

    /** Everything may be said again, as to a new listener. */
    public void forget() {
        said.clear();
        toldNoMore.set(false);
    }
}
