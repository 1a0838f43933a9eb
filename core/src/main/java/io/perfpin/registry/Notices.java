package io.perfpin.registry;

import io.perfpin.stats.AgentNotice;
import io.perfpin.stats.SaidOnce;
import java.util.ArrayList;
import java.util.List;

/**
 * What the registry says, once per notice however many threads meet it ({@link SaidOnce}: the same kind about the
 * same subject): to its sink (the agent's voice), and to viewers through the stats file once there is one. A
 * failure that comes again reaches the sink again ({@link NoticeSink#again}), for a log that keeps each one. While a
 * stats file is on its way (created by the sampler shortly after it starts), notices for viewers wait for it. Safe on
 * any thread.
 */
final class Notices {
    private final NoticeSink sink;
    private final SaidOnce said = new SaidOnce();
    /** Null while no stats file is published. */
    private volatile StatsPublisher stats;
    /** A stats file is on its way: {@link #early} holds what viewers will read in it. */
    private volatile boolean expected;

    private final List<AgentNotice> early = new ArrayList<>();

    Notices(NoticeSink sink) {
        this.sink = sink;
    }

    /** Where a notice goes that the stats file cannot take. */
    NoticeSink sink() {
        return sink;
    }

    /** A stats file is being made: notices for viewers wait for {@link #publishTo} or {@link #noStatsFile}. */
    void expectStatsFile() {
        expected = true;
    }

    /** From now on notices reach viewers through {@code publisher} too, those that waited for it first. */
    synchronized void publishTo(StatsPublisher publisher) {
        stats = publisher;
        expected = false;
        for (AgentNotice notice : early) {
            publisher.post(notice);
        }
        early.clear();
    }

    /**
     * The stats file that was expected will not come: what waited for it goes where unpublished notices go, before
     * {@link #published} says false.
     */
    synchronized void noStatsFile() {
        for (AgentNotice notice : early) {
            sink.unpublished(notice);
        }
        early.clear();
        expected = false;
    }

    /**
     * Viewers get nothing more through the stats file, whose writer, the sampler, is not coming back: what waited for
     * a stats file, and what is said from now on, goes where unpublished notices go.
     */
    synchronized void unpublish() {
        stats = null;
        noStatsFile();
    }

    /**
     * Says a notice of the registry's own, unless one like it was said before. Posted first, then said: a sink that
     * keeps back from stderr what viewers will read asks {@link #published} after the notice is on its way to them,
     * so a stats file given up in between ({@link #noStatsFile}) hands it back rather than losing it. A failure said
     * before goes to {@link NoticeSink#again}, with its cause.
     */
    void sayOnce(AgentNotice notice) {
        AgentNotice now = said.toSay(notice);
        if (now != null) {
            post(now);
            sink.said(now);
        }
        if (now != notice && notice.cause() != null) {
            sink.again(notice);
        }
    }

    /** {@code what} failed with {@code cause}: said once, and each time to a log ({@link AgentNotice#failure}). */
    void failed(String what, Throwable cause) {
        sayOnce(AgentNotice.failure(what, cause));
    }

    /** Posts a notice that the agent said itself for viewers of the stats file, when there is or will be one. */
    void post(AgentNotice notice) {
        StatsPublisher publisher = stats;
        if (publisher != null) {
            publisher.post(notice);
        } else if (expected) {
            synchronized (this) {
                if (stats != null) {
                    stats.post(notice);
                } else if (expected) {
                    early.add(notice);
                }
            }
        }
    }

    /** Whether a notice posted now reaches viewers through the stats file, or waits for the one on its way. */
    boolean published() {
        StatsPublisher publisher = stats;
        return publisher != null ? publisher.publishesNotices() : expected;
    }
}
