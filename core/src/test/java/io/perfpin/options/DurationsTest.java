package io.perfpin.options;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {
    @Test
    void everyUnit() {
        assertEquals(Duration.ofNanos(250), Durations.parse("250ns"));
        assertEquals(Duration.ofNanos(100_000), Durations.parse("100us"));
        assertEquals(Duration.ofMillis(500), Durations.parse("500ms"));
        assertEquals(Duration.ofSeconds(5), Durations.parse(" 5s "));
        assertEquals(Duration.ofMinutes(2), Durations.parse("2m"));
    }

    /** Said back in the largest unit that holds it whole, as it would be written: never a rounded 0.000 s. */
    @Test
    void aDurationIsSaidAsItWouldBeWritten() {
        for (String written : new String[] {"1ns", "1500us", "250ms", "90s", "2m"}) {
            assertEquals(written, Durations.text(Durations.parse(written)));
        }
        assertEquals("1m", Durations.text(Durations.parse("60s")));
    }

    @Test
    void aBadDurationNamesTheTokenAndWhatIsAllowed() {
        for (String bad : new String[] {"5parsecs", "0ms", "-1s", "1.5s", "ms", ""}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Durations.parse(bad));
            assertTrue(
                    e.getMessage().contains("'" + bad + "'") && e.getMessage().contains("ns, us, ms, s or m"),
                    e.getMessage());
        }
    }

    @Test
    void aDurationPastAYearIsTooLargeInEveryUnitNeverAnOverflow() {
        assertEquals(Durations.MAX, Durations.parse("525600m"));
        assertEquals(Durations.MAX, Durations.parse("31536000000000000ns"));
        for (String big : new String[] {
            "525601m", "999999999999m", "31536000001s", "9223372036854775807ns", "99999999999999999999999999999999us"
        }) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Durations.parse(big));
            assertEquals("bad duration '" + big + "': too large (at most 525600m, a year)", e.getMessage());
        }
    }
}
