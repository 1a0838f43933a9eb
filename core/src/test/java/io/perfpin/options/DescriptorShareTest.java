package io.perfpin.options;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class DescriptorShareTest {
    @Test
    void aShareIsOfTheFreeDescriptorsAndANumberNeverMoreThanAreFree() {
        assertEquals(5_000, DescriptorShare.DEFAULT.of(20_000), "a quarter by default");
        assertEquals(20_000, DescriptorShare.parse("fds=100%", "100%").of(20_000));
        assertEquals(4_000, DescriptorShare.parse("fds=4000", "4000").of(20_000));
        assertEquals(3_000, DescriptorShare.parse("fds=4000", "4000").of(3_000));
        assertEquals(0, DescriptorShare.DEFAULT.of(-1), "a process already over its limit has none free");
    }

    @Test
    void aBadValueIsOneLineNamingTheOptionAndWhatIsAllowed() {
        for (String value : new String[] {"", "0", "0%", "101%", "-5", "25 %", "1.5%", "lots", "9999999999"}) {
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class, () -> DescriptorShare.parse("fds=" + value, value), value);
            assertEquals("bad option 'fds=" + value + "': expected " + DescriptorShare.ALLOWED, e.getMessage());
        }
    }
}
