package io.perfpin.stats;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one rule for what is said once, wherever perfpin speaks (the agent's stderr and its stats file, a viewer's
 * output, the JMH profiler's notes): a notice of the same {@link AgentNotice.Kind kind} about the same
 * {@link AgentNotice#subject subject} as one said before is not said again. A failure that keeps coming is said
 * once however its exception reads each time; its every occurrence is for a log, not for the user's terminal.
 * Safe on any thread.
 */
public final class SaidOnce {
    private record Key(AgentNotice.Kind kind, String subject) {}

    private final Set<Key> said = ConcurrentHashMap.newKeySet();

    /** True the first time a notice like this one is offered, false every later time. */
    public boolean first(AgentNotice notice) {
        return said.add(new Key(notice.kind(), notice.subject()));
    }

    /** Everything may be said again, as to a new listener. */
    public void forget() {
        said.clear();
    }
}
