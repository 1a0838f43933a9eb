package io.perfpin.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class DerivedMetricTest {
    @Test
    void ipcAndCpi() {
        assertEquals(
                List.of("instructions", "cycles"), metric(Presets.IPC, "ipc").inputs());
        assertEquals(2.0, metric(Presets.IPC, "ipc").compute(2e9, 1e9));
        assertEquals(0.5, metric(Presets.IPC, "cpi").compute(1e9, 2e9));
    }

    @Test
    void missRatiosAndPerThousandInstructions() {
        assertEquals(0.25, metric(Presets.CACHE, "cache-miss-ratio").compute(250, 1000));
        assertEquals(2.5, metric(Presets.CACHE, "cache-mpki").compute(5000, 2e6));
        assertEquals(0.05, metric(Presets.CACHE, "L1d-miss-ratio").compute(50_000, 1_000_000), 1e-12);
        assertEquals(0.125, metric(Presets.BRANCH, "branch-miss-ratio").compute(1000, 8000));
        assertEquals(4.0, metric(Presets.BRANCH, "branch-mpki").compute(12_000, 3e6));
        assertEquals(0.3, metric(Presets.TLB, "dTLB-mpki").compute(900, 3e6), 1e-12);
        assertEquals(0.1, metric(Presets.TLB, "walk-cycles-share").compute(1e8, 1e9), 1e-12);
        assertEquals(0.02, metric(Presets.ALIASING, "4k-alias-pki").compute(40, 2e6), 1e-12);
    }

    @Test
    void wallTimeMetrics() {
        assertEquals(0.5, metric(Presets.SCHED, "cpu-utilisation").compute(5e8, 1e9));
        assertEquals(100.0, metric(Presets.SCHED, "cs-per-sec").compute(200, 2e9));
        assertEquals(
                List.of("context-switches", DerivedMetric.WALL_NANOS),
                metric(Presets.SCHED, "cs-per-sec").inputs());
    }

    @Test
    void missingOrEmptyInputsGiveNaN() {
        DerivedMetric ipc = metric(Presets.IPC, "ipc");
        assertTrue(Double.isNaN(ipc.compute(Double.NaN, 5)));
        assertTrue(Double.isNaN(ipc.compute(0, 0)));
        assertTrue(Double.isNaN(ipc.compute(7, 0)));
        assertEquals(0.0, ipc.compute(0, 7));
        assertThrows(IllegalArgumentException.class, () -> ipc.compute(1));
    }

    @Test
    void customFormulaOverInputsInOrder() {
        DerivedMetric spread = new DerivedMetric("spread", "a minus b", List.of("a", "b"), x -> x[0] - x[1]);
        assertEquals(3.0, spread.compute(5, 2));
    }

    @Test
    void presetsOnlyReferToTheirOwnEvents() {
        assertThrows(
                IllegalArgumentException.class,
                () -> new Preset(
                        "bad",
                        "metric on an unlisted event",
                        List.of("cycles"),
                        java.util.Set.of(),
                        List.of(DerivedMetric.ratio("ipc", "", "instructions", "cycles", 1))));
    }

    static DerivedMetric metric(Preset preset, String name) {
        return preset.metrics().stream()
                .filter(m -> m.name().equals(name))
                .findFirst()
                .orElseThrow();
    }
}
