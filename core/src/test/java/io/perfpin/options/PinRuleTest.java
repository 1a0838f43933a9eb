package io.perfpin.options;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.perfpin.cpu.CpuSet;
import io.perfpin.cpu.Placement;
import org.junit.jupiter.api.Test;

class PinRuleTest {
    @Test
    void regexAndPlacementSplitAtTheLastAt() {
        PinRule rule = PinRule.parse("disruptor-.*@2-3");
        assertEquals(Placement.cpus(CpuSet.parseList("2-3")), rule.placement());
        assertTrue(rule.matches("disruptor-1"));
        assertFalse(rule.matches("my-disruptor-1"), "the whole name must match");
        assertEquals("mail@home@core", PinRule.parse("mail@home@core").toString());
        assertEquals(Placement.ISOLATED, PinRule.parse("io-\\d+@isolated").placement());
    }

    @Test
    void badRulesNameTheTokenAndWhatIsAllowed() {
        for (String bad : new String[] {"worker", "@2", "worker@", "worker@cores", "work[er@2", "w@9-2"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PinRule.parse(bad));
            assertTrue(e.getMessage().startsWith("bad pin rule '" + bad + "': "), e.getMessage());
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
        }
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PinRule.parse("w@cores"))
                .getMessage()
                .contains("did you mean 'core'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PinRule.parse("w@99999999999"))
                .getMessage()
                .contains("expected CPUs up to 1048575"));
        String overlong = "w".repeat(OptionLimits.MAX_VALUE_CHARS) + "@0";
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PinRule.parse(overlong))
                .getMessage()
                .endsWith("': too long (4098 characters; at most 4096)"));
    }
}
