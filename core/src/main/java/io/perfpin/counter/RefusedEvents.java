package io.perfpin.counter;

import io.perfpin.event.EventSpec;
import io.perfpin.nativeio.Errno;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Events the kernel refuses whatever the thread: no PMU for them (a virtual machine), not supported, not
 * permitted at this paranoid level. Once one thread was refused such an event, counters for later threads
 * skip opening it and report the same reason, so enrolling a thread costs no failed system calls, and no
 * reason is worked out twice. Refusals that depend on the moment or the thread (out of descriptors, the thread
 * gone, counters all taken) are not kept.
 */
public final class RefusedEvents {
    private final Map<EventSpec, EventFailure> refused = new ConcurrentHashMap<>();

    /** The failure an earlier thread met for this event, at this thread's index; null when none is known. */
    EventFailure knownFailure(EventSpec event, int index) {
        EventFailure known = refused.get(event);
        return known == null ? null : new EventFailure(event, index, known.errno(), known.reason());
    }

    void remember(EventFailure failure) {
        switch (failure.errno()) {
            case Errno.ENOENT, Errno.ENODEV, Errno.EOPNOTSUPP, Errno.EACCES, Errno.EPERM ->
                refused.putIfAbsent(failure.event(), failure);
            default -> {}
        }
    }
}
