package io.perfpin.apps;

import java.nio.ByteBuffer;

/**
 * Touches fresh memory one write per page, so the touching thread takes one page fault per page (with
 * transparent huge pages off or in madvise mode, as {@link #hugePagesMayFold()} tells).
 *
 * <p>Usage: {@code java io.perfpin.apps.PageToucher [MiB]} prints the pages it touched.
 */
public final class PageToucher {
    public static final int PAGE_SIZE = 4096;
    private static final String THP_ENABLED = "/sys/kernel/mm/transparent_hugepage/enabled";

    private PageToucher() {
    }

    /**
     * Allocates {@code bytes} of off-heap memory and writes one byte per page; returns the pages touched.
     * The buffer comes from malloc, which maps large blocks fresh from the kernel, so every page faults.
     */
    public static long touch(long bytes) {
        long pages = 0;
        long remaining = bytes;
        while (remaining > 0) {
            int chunk = (int) Math.min(remaining, 1L << 30);
            ByteBuffer memory = ByteBuffer.allocateDirect(chunk);
            for (int offset = 0; offset < chunk; offset += PAGE_SIZE) {
                memory.put(offset, (byte) 1);
                pages++;
            }
            remaining -= chunk;
        }
        return pages;
    }

    /** True when the kernel may back this memory with huge pages, folding 512 faults into one. */
    public static boolean hugePagesMayFold() {
        try {
            // Line by line: whole-file reads of kernel pseudo-files can stop after one byte.
            return String.join("", java.nio.file.Files.readAllLines(java.nio.file.Paths.get(THP_ENABLED)))
                    .contains("[always]");
        } catch (java.io.IOException e) {
            return false;
        }
    }

    public static void main(String[] args) {
        long mib = args.length > 0 ? Long.parseLong(args[0]) : 64;
        System.out.println("touched " + touch(mib << 20) + " pages");
    }
}
