package io.perfpin.apps;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Touches fresh memory one write per page, so the touching thread takes exactly one page fault per page.
 *
 * <p>The memory is a private mapping of a new, sparse, already deleted file: every first write to a page
 * is a copy-on-write fault. Unlike malloc'd memory, it is never recycled from earlier allocations, and
 * transparent huge pages do not apply to it, whatever malloc or the kernel's settings did before.
 *
 * <p>Usage: {@code java io.perfpin.apps.PageToucher [MiB]} prints the pages it touched.
 */
public final class PageToucher {
    public static final int PAGE_SIZE = 4096;
    private static final int MAX_CHUNK = 1 << 30;

    private PageToucher() {}

    /** Maps {@code bytes} of fresh memory and writes one byte per page; returns the pages touched. */
    public static long touch(long bytes) {
        try (FreshMemory memory = FreshMemory.open()) {
            return memory.touch(bytes);
        }
    }

    /**
     * One deleted sparse file to touch fresh memory from many times, for callers that touch often: opening
     * it is the slow part. Each {@link #touch} maps it privately anew, so each touch faults every page
     * again. Threads may share one.
     */
    public static final class FreshMemory implements AutoCloseable {
        private final FileChannel file;

        private FreshMemory(FileChannel file) {
            this.file = file;
        }

        public static FreshMemory open() {
            try {
                Path path = Files.createTempFile("perfpin-pages", ".mem");
                try {
                    return new FreshMemory(FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE));
                } finally {
                    Files.delete(path);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Maps {@code bytes} of fresh memory and writes one byte per page; returns the pages touched. */
        public long touch(long bytes) {
            return touch(bytes, false);
        }

        /**
         * As {@link #touch}, then unmaps the memory at once, so that a caller touching again and again (a benchmark
         * operation) holds no more than one touch's pages, whenever the collector runs. Unmapping takes no fault.
         */
        public long touchAndUnmap(long bytes) {
            return touch(bytes, true);
        }

        private long touch(long bytes, boolean unmap) {
            long pages = 0;
            for (long done = 0; done < bytes; ) {
                int chunk = (int) Math.min(bytes - done, MAX_CHUNK);
                MappedByteBuffer memory = map(chunk);
                for (int offset = 0; offset < chunk; offset += PAGE_SIZE) {
                    memory.put(offset, (byte) 1);
                    pages++;
                }
                if (unmap) {
                    Unmapper.unmap(memory);
                }
                done += chunk;
            }
            return pages;
        }

        private MappedByteBuffer map(int bytes) {
            try {
                // Mapping past the end extends the empty file with a hole: no page exists until written.
                return file.map(FileChannel.MapMode.PRIVATE, 0, bytes);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Closes the file; memory already mapped stays mapped. */
        @Override
        public void close() {
            try {
                file.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** Unmaps a mapped buffer now, through the JDK's own cleaner for it (jdk.unsupported, there since JDK 9). */
    private static final class Unmapper {
        private static final sun.misc.Unsafe UNSAFE = unsafe();

        static void unmap(MappedByteBuffer buffer) {
            UNSAFE.invokeCleaner(buffer);
        }

        private static sun.misc.Unsafe unsafe() {
            try {
                java.lang.reflect.Field field = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
                field.setAccessible(true);
                return (sun.misc.Unsafe) field.get(null);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("no sun.misc.Unsafe to unmap with", e);
            }
        }
    }

    public static void main(String[] args) {
        long mib = args.length > 0 ? Long.parseLong(args[0]) : 64;
        System.out.println("touched " + touch(mib << 20) + " pages");
    }
}
