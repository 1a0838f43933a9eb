package io.perfpin.registry;

import io.perfpin.cpu.Placement;
import io.perfpin.nativeio.Errno;
import io.perfpin.nativeio.NativeException;
import io.perfpin.stats.AgentNotice;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Pins that could not be had, said once per placement and reason, naming the first thread refused: a rule that cannot
 * pin a pool's threads (no isolated CPU on this host, a CPU the process may not use) would otherwise say a line for
 * each thread it meets, 500 of them before {@link io.perfpin.stats.SaidOnce} stops. How many threads each refused is
 * said when counting stops. Safe on any thread.
 */
final class PinRefusals {
    /** Placements and reasons counted: few come from the options and annotations; past them, each is still said. */
    private static final int COUNTED = 64;

    private final Notices notices;
    private final Map<String, Refusal> refusals = new ConcurrentHashMap<>();

    /** The threads one placement refused for one reason, the first of them named. */
    private record Refusal(Placement placement, String first, AtomicInteger threads) {}

    PinRefusals(Notices notices) {
        this.notices = notices;
    }

    /** Thread {@code name} could not be pinned as {@code placement} says, for {@code why}. */
    void refused(String name, Placement placement, Exception why) {
        String subject = "cannot pin (" + placement + "): " + kind(why);
        Refusal refusal = refusals.get(subject);
        if (refusal == null && refusals.size() < COUNTED) {
            refusal = refusals.computeIfAbsent(subject, s -> new Refusal(placement, name, new AtomicInteger()));
        }
        if (refusal != null) {
            refusal.threads.incrementAndGet();
        }
        notices.sayOnce(new AgentNotice(
                AgentNotice.Kind.REFUSED,
                subject,
                "cannot pin thread '" + name + "' (" + placement + "): " + why.getMessage(),
                null));
    }

    /**
     * What a failure to pin, or to reset a pin, is about, for a notice's subject: its kind (the errno of a system
     * call), not its text, which may name the thread or its TID.
     */
    static String kind(Exception why) {
        return why instanceof NativeException e
                ? Errno.name(e.errno())
                : why.getClass().getName();
    }

    /** Says how many threads each placement refused, where it refused more than the one named when it was said. */
    void sayCounts() {
        for (Refusal refusal : refusals.values()) {
            int threads = refusal.threads.get();
            if (threads > 1) {
                // information about the refusal said before, not another: a viewer counts what the agent could not do
                notices.sayOnce(AgentNotice.info(threads + " threads in all could not be pinned (" + refusal.placement
                        + "), for the reason said with the first, '" + refusal.first + "'"));
            }
        }
    }
}
