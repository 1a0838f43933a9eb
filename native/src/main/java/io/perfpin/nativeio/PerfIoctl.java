package io.perfpin.nativeio;

/** The perf event ioctls of {@code linux/perf_event.h} (x86-64 and arm64 share these numbers). */
public final class PerfIoctl {
    public static final long ENABLE = 0x2400;
    public static final long DISABLE = 0x2401;
    public static final long RESET = 0x2403;
    /** Argument that applies ENABLE, DISABLE or RESET to the whole group of the leader fd. */
    public static final long FLAG_GROUP = 1;

    private PerfIoctl() {
    }
}
