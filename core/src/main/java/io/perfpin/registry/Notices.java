package io.perfpin.registry;

import io.perfpin.stats.AgentNotice;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the registry says, once per distinct text however many threads meet it: to its sink (the agent's voice),
 * and to viewers through the stats file once there is one. Safe on any thread.
 */
final class Notices {
    private final NoticeSink sink;
    private final Set<String> said = ConcurrentHashMap.newKeySet();
    /** Null while no stats file is published. */
    private volatile StatsPublisher stats;

    Notices(NoticeSink sink) {
        this.sink = sink;
    }

    /** Where a notice goes that the stats file cannot take. */
    NoticeSink sink() {
        return sink;
    }

    /** From now on notices reach viewers through {@code publisher} too. */
    void publishTo(StatsPublisher publisher) {
        stats = publisher;
    }

    /** Says a notice of the registry's own, unless its text was said before. */
    void sayOnce(AgentNotice notice) {
        if (said.add(notice.text())) {
            sink.said(notice);
            post(notice);
        }
    }

    /** Posts a notice that the agent said itself for viewers of the stats file, when there is one. */
    void post(AgentNotice notice) {
        StatsPublisher publisher = stats;
        if (publisher != null) {
            publisher.post(notice);
        }
    }

    /** Whether a notice posted now reaches viewers through the stats file. */
    boolean published() {
        StatsPublisher publisher = stats;
        return publisher != null && publisher.publishesNotices();
    }
}
