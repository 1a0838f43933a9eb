package io.perfpin.apps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class VirtualMountsTest {
    /** On the JDK running the build: every yield on JDK 21 and later, one clear error before. */
    @Test
    void eachVirtualThreadYieldsItsCountOrTheJdkIsNamed() throws Exception {
        VirtualMounts.Options options = VirtualMounts.Options.from(Args.parse("--threads", "3", "--yields", "50"));
        if (Runtime.version().feature() < 21) {
            assertTrue(assertThrows(IllegalStateException.class, () -> VirtualMounts.run(options))
                    .getMessage()
                    .startsWith("virtual threads need JDK 21 or later"));
            return;
        }
        VirtualMounts.Result result = VirtualMounts.run(options);
        assertEquals(150, result.yields());
        assertTrue(result.line().startsWith("result vmounts threads=3 yields=150 ms="), result.line());
    }
}
