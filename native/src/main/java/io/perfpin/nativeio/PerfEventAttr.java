package io.perfpin.nativeio;

import java.nio.ByteBuffer;

/**
 * {@code struct perf_event_attr} of {@code linux/perf_event.h}, as perfpin fills it, written into a
 * native buffer at {@link #SIZE} bytes (PERF_ATTR_SIZE_VER7). Fields perfpin never sets stay zero, which
 * the kernel accepts from any version that knows the size.
 *
 * <pre>
 * offset  size  field
 *      0     4  type            PERF_TYPE_* or a PMU's type from sysfs
 *      4     4  size            {@link #SIZE}
 *      8     8  config
 *     16     8  sample_period   (unused: perfpin counts, it does not sample)
 *     24     8  sample_type     (unused)
 *     32     8  read_format     PERF_FORMAT_* bits
 *     40     8  flags           bit 0 disabled, 1 inherit, 4 exclude_user, 5 exclude_kernel,
 *                               6 exclude_hv, 7 exclude_idle, ...
 *     48     4  wakeup_events   (unused)
 *     52     4  bp_type         (unused)
 *     56     8  config1
 *     64     8  config2
 *     72..127   (unused by perfpin)
 * </pre>
 */
public final class PerfEventAttr {
    public static final int SIZE = 128;
    /** perf_event_open's flags argument: the descriptor closes on exec, so no child inherits a counter. */
    public static final long PERF_FLAG_FD_CLOEXEC = 8;

    public static final int TYPE_OFFSET = 0;
    public static final int SIZE_OFFSET = 4;
    public static final int CONFIG_OFFSET = 8;
    public static final int READ_FORMAT_OFFSET = 32;
    public static final int FLAGS_OFFSET = 40;
    public static final int CONFIG1_OFFSET = 56;
    public static final int CONFIG2_OFFSET = 64;

    public static final int TYPE_HARDWARE = 0;
    public static final int TYPE_SOFTWARE = 1;
    public static final int TYPE_TRACEPOINT = 2;
    public static final int TYPE_HW_CACHE = 3;
    public static final int TYPE_RAW = 4;
    public static final int TYPE_BREAKPOINT = 5;

    public static final long FORMAT_TOTAL_TIME_ENABLED = 1L;
    public static final long FORMAT_TOTAL_TIME_RUNNING = 1L << 1;
    public static final long FORMAT_ID = 1L << 2;
    public static final long FORMAT_GROUP = 1L << 3;

    public static final long FLAG_DISABLED = 1L;
    public static final long FLAG_INHERIT = 1L << 1;
    public static final long FLAG_EXCLUDE_USER = 1L << 4;
    public static final long FLAG_EXCLUDE_KERNEL = 1L << 5;
    public static final long FLAG_EXCLUDE_HV = 1L << 6;

    private int type;
    private long config;
    private long config1;
    private long config2;
    private long readFormat;
    private long flags;

    public PerfEventAttr type(int type) {
        this.type = type;
        return this;
    }

    public PerfEventAttr config(long config) {
        this.config = config;
        return this;
    }

    public PerfEventAttr config1(long config1) {
        this.config1 = config1;
        return this;
    }

    public PerfEventAttr config2(long config2) {
        this.config2 = config2;
        return this;
    }

    public PerfEventAttr readFormat(long readFormat) {
        this.readFormat = readFormat;
        return this;
    }

    public PerfEventAttr flags(long flags) {
        this.flags = flags;
        return this;
    }

    public int type() {
        return type;
    }

    public long config() {
        return config;
    }

    public long config1() {
        return config1;
    }

    public long config2() {
        return config2;
    }

    public long readFormat() {
        return readFormat;
    }

    public long flags() {
        return flags;
    }

    /** Writes the whole struct, zeroes included, at offset 0 of {@code buffer} (native byte order). */
    public void writeTo(ByteBuffer buffer) {
        for (int i = 0; i < SIZE; i += Long.BYTES) {
            buffer.putLong(i, 0L);
        }
        buffer.putInt(TYPE_OFFSET, type);
        buffer.putInt(SIZE_OFFSET, SIZE);
        buffer.putLong(CONFIG_OFFSET, config);
        buffer.putLong(READ_FORMAT_OFFSET, readFormat);
        buffer.putLong(FLAGS_OFFSET, flags);
        buffer.putLong(CONFIG1_OFFSET, config1);
        buffer.putLong(CONFIG2_OFFSET, config2);
    }
}
