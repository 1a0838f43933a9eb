package io.perfpin.nativeio;

/** The perf event ioctls of {@code linux/perf_event.h} (x86-64 and arm64 share these numbers). */
public final class PerfIoctl {
    public static final long ENABLE = 0x2400;
    public static final long DISABLE = 0x2401;
    public static final long RESET = 0x2403;
    /** _IOR('$', 7, u64): writes the event's id, as group reads with PERF_FORMAT_ID report it, to the address arg. */
    public static final long ID = 0x80082407L;
    /** Argument that applies ENABLE, DISABLE or RESET to the whole group of the leader fd. */
    public static final long FLAG_GROUP = 1;

    private PerfIoctl() {}
}
