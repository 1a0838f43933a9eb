package io.perfpin.apps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ResultLineTest {
    @Test
    void formatsAndParsesBack() {
        String line = new ResultLine("matrix")
                .add("n", 64)
                .add("ijk-ms", 1.23456)
                .add("equal", true)
                .toString();
        assertEquals("result matrix n=64 ijk-ms=1.235 equal=true", line);
        assertEquals(
                Map.of("workload", "matrix", "n", "64", "ijk-ms", "1.235", "equal", "true"), ResultLine.parse(line));
    }

    @Test
    void refusesOtherLines() {
        assertThrows(IllegalArgumentException.class, () -> ResultLine.parse("touched 5 pages"));
        assertThrows(IllegalArgumentException.class, () -> ResultLine.parse("result matrix n"));
    }
}
