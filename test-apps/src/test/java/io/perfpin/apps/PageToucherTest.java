package io.perfpin.apps;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
