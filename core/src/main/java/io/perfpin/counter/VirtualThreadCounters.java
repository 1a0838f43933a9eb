package io.perfpin.counter;

import io.perfpin.event.EventSpec;
import io.perfpin.nativeio.NativeBuffer;
import io.perfpin.nativeio.PerfEventAttr;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.nativeio.VirtualThreadCounting;
import java.nio.ByteOrder;
import java.util.List;

/**
 * The events of virtual threads ({@link VirtualThreadCounting}): each carrier thread's group is opened with these
 * attributes, as {@link CounterGroup} opens a thread's (the same read format), and a virtual thread's totals at its
 * end become {@link Counts} here, scaled as every other thread's are.
 */
public final class VirtualThreadCounters {
    private VirtualThreadCounters() {}

    /**
     * The events' attributes one after the other, {@link PerfEventAttr#SIZE} bytes each, enabled from the open: a
     * carrier's group counts from its first mount on. The caller frees nothing: the buffer is the JVM's memory.
     */
    public static NativeBuffer encode(Syscalls syscalls, List<EventSpec> events) {
        NativeBuffer buffer = NativeBuffer.allocate(syscalls, events.size() * PerfEventAttr.SIZE);
        for (int i = 0; i < events.size(); i++) {
            PerfEventAttr attr = events.get(i).toAttr().readFormat(KernelGroup.READ_FORMAT);
            attr.writeTo(buffer.buffer()
                    .slice(i * PerfEventAttr.SIZE, PerfEventAttr.SIZE)
                    .order(ByteOrder.nativeOrder()));
        }
        return buffer;
    }

    /** The totals {@code VirtualThreadCounting} reports for {@code events} events, as counts. */
    public static CounterSnapshot counts(long[] totals, int events) {
        CounterSnapshot counts = new CounterSnapshot(events);
        for (int i = 0; i < events; i++) {
            if (VirtualThreadCounting.counted(totals, events, i)) {
                counts.set(
                        i,
                        totals[VirtualThreadCounting.at(i, VirtualThreadCounting.RAW)],
                        totals[VirtualThreadCounting.at(i, VirtualThreadCounting.ENABLED)],
                        totals[VirtualThreadCounting.at(i, VirtualThreadCounting.RUNNING)]);
            } else {
                counts.notOpened(i);
            }
        }
        return counts;
    }
}
