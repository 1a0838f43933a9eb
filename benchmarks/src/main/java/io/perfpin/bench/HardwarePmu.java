package io.perfpin.bench;

import io.perfpin.counter.CounterSnapshot;
import io.perfpin.counter.SelfCounters;
import io.perfpin.nativeio.Backend;
import io.perfpin.nativeio.BackendUnavailableException;
import io.perfpin.nativeio.Backends;

/**
 * Whether this machine counts hardware events, and whether a thread may read its own counter with rdpmc:
 * found by opening {@code instructions} for the calling thread, as perfpin would, and reading it once.
 *
 * @param detail the kernel's refusal as perfpin words it, or how the read went
 */
public record HardwarePmu(boolean present, boolean rdpmc, String detail) {

    public static HardwarePmu probe() {
        try (SelfCounters counters = SelfCounters.open(Backends.load(Backend.JNI), ReadEvents.parse("instructions"))) {
            if (!counters.unsupported().isEmpty()) {
                return new HardwarePmu(
                        false, false, counters.unsupported().get(0).reason());
            }
            CounterSnapshot snapshot = counters.newSnapshot();
            int rc = counters.read(snapshot);
            boolean rdpmc = rc == 0 && counters.lastRdpmcReads() > 0;
            return new HardwarePmu(
                    true,
                    rdpmc,
                    rdpmc
                            ? "rdpmc self-reads work"
                            : "instructions count, but the kernel does not let user space read them with rdpmc"
                                    + " (cap_user_rdpmc off: /sys/bus/event_source/devices/cpu/rdpmc)");
        } catch (BackendUnavailableException e) {
            return new HardwarePmu(false, false, "cannot tell: " + e.getMessage());
        }
    }
}
