package io.perfpin.counter;

import io.perfpin.event.EventSpec;
import io.perfpin.nativeio.NativeBuffer;
import io.perfpin.nativeio.PerfEventAttr;
import io.perfpin.nativeio.Syscalls;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Each event's {@code perf_event_attr} as {@link CounterGroup} opens it, encoded once per JVM into native memory that
 * the kernel only reads: opening a thread's counters then encodes nothing and allocates no buffer, however many
 * threads open the same events at once. Two attributes per event, a group leader's (disabled, so that the whole
 * group starts counting at one instant) and a member's. It holds {@code 2 * }{@value PerfEventAttr#SIZE} bytes for
 * each distinct event ever counted in this JVM: the events of the options and of the {@code @Counted} annotations.
 */
final class EncodedAttrs {
    private static final Map<EventSpec, NativeBuffer> ENCODED = new ConcurrentHashMap<>();

    private EncodedAttrs() {}

    /** The address of {@code event}'s attribute as the leader of a new kernel group. */
    static long leader(Syscalls syscalls, EventSpec event) {
        return of(syscalls, event).address();
    }

    /** The address of {@code event}'s attribute as a member of a group whose leader is open. */
    static long member(Syscalls syscalls, EventSpec event) {
        return of(syscalls, event).address() + PerfEventAttr.SIZE;
    }

    private static NativeBuffer of(Syscalls syscalls, EventSpec event) {
        NativeBuffer encoded = ENCODED.get(event);
        if (encoded == null) {
            // not computeIfAbsent: its lambda would be linked in premain, for the first thread enrolled
            NativeBuffer fresh = encode(syscalls, event);
            encoded = ENCODED.putIfAbsent(event, fresh);
            return encoded != null ? encoded : fresh;
        }
        return encoded;
    }

    private static NativeBuffer encode(Syscalls syscalls, EventSpec event) {
        NativeBuffer buffer = NativeBuffer.allocate(syscalls, 2 * PerfEventAttr.SIZE);
        PerfEventAttr attr = event.toAttr().readFormat(KernelGroup.READ_FORMAT);
        long flags = attr.flags();
        attr.flags(flags | PerfEventAttr.FLAG_DISABLED).writeTo(half(buffer, 0));
        attr.flags(flags).writeTo(half(buffer, PerfEventAttr.SIZE));
        return buffer;
    }

    private static ByteBuffer half(NativeBuffer buffer, int offset) {
        return buffer.buffer().slice(offset, PerfEventAttr.SIZE).order(ByteOrder.nativeOrder());
    }
}
