package io.perfpin.apps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class PageToucherTest {
    @Test
    void touchesEveryPageStartedOfTheRequestedBytes() {
        assertEquals(3, PageToucher.touch(2L * PageToucher.PAGE_SIZE + 1));
    }

    @Test
    void freshMemoryServesRepeatedTouches() {
        try (PageToucher.FreshMemory memory = PageToucher.FreshMemory.open()) {
            assertEquals(4, memory.touch(4L * PageToucher.PAGE_SIZE));
            assertEquals(4, memory.touch(4L * PageToucher.PAGE_SIZE));
            assertEquals(1, memory.touch(1));
        }
    }

    /** A thousand touches of 1 MiB leave no mapping behind: the collector need not run for them to go. */
    @Test
    void touchAndUnmapLeavesNoMappingBehind() throws Exception {
        try (PageToucher.FreshMemory memory = PageToucher.FreshMemory.open()) {
            long before = mappings();
            for (int i = 0; i < 1000; i++) {
                assertEquals(256, memory.touchAndUnmap(256L * PageToucher.PAGE_SIZE));
            }
            assertTrue(mappings() < before + 100, before + " mappings before, " + mappings() + " after");
        }
    }

    private static long mappings() throws Exception {
        return Files.readAllLines(Path.of("/proc/self/maps")).size();
    }
}
