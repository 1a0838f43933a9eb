package io.perfpin.counter;

import io.perfpin.event.EventSpec;
import io.perfpin.nativeio.Errno;

/** An event the kernel refused for one thread: which, the errno, and what the user can do about it. */
public final class EventFailure {
    private final EventSpec event;
    private final int index;
    private final int errno;
    private final String reason;

    public EventFailure(EventSpec event, int index, int errno, String reason) {
        this.event = event;
        this.index = index;
        this.errno = errno;
        this.reason = reason;
    }

    public EventSpec event() {
        return event;
    }

    /** Where the event stood in the request, which is its index in snapshots. */
    public int index() {
        return index;
    }

    /** The positive errno perf_event_open returned. */
    public int errno() {
        return errno;
    }

    /** One line: why, and what to do. */
    public String reason() {
        return reason;
    }

    @Override
    public String toString() {
        return event.name() + ": " + reason + " (" + Errno.name(errno) + ")";
    }
}
