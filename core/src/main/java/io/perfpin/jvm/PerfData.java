package io.perfpin.jvm;

import io.perfpin.nativeio.FileStat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The string counters of a HotSpot {@code hsperfdata} file (the one {@code jps} and {@code jstat} read:
 * {@code /tmp/hsperfdata_<user>/<pid>}), read without attaching and without signalling the JVM. perfpin reads
 * {@code sun.rt.jvmCapabilities}, whose first character is {@code 1} when the JVM accepts attach.
 *
 * <pre>
 * Prologue, 32 bytes:
 *   0  u32 magic           0xcafec0c0, big-endian
 *   4  u8  byte order      0 big-endian, 1 little-endian: every later field
 *   5  u8  major version, u8 minor version, u8 accessible
 *   8  i32 used            bytes of the file in use
 *  12  i32 overflow
 *  16  i64 modification time stamp
 *  24  i32 entry offset    where the first entry starts
 *  28  i32 entry count
 * Each entry, from its own start:
 *   0  i32 entry length
 *   4  i32 name offset     a NUL-terminated name
 *   8  i32 vector length   0 for a scalar; for a string, the bytes reserved for it
 *  12  u8  data type       'B' for a byte vector (a NUL-terminated string), 'J' for a long, ...
 *  13  u8 flags, u8 units, u8 variability
 *  16  i32 data offset
 * </pre>
 * A file that is not laid out so (another JVM, a damaged or planted file) is read as far as it is sound, and
 * nothing past its end or its own lengths is ever read.
 */
final class PerfData {
    static final int MAGIC = 0xcafec0c0;
    private static final int PROLOGUE = 32;
    private static final int ENTRY_HEADER = 20;
    /** A JVM's default PerfDataMemorySize is 64 KiB, and never more than a few MiB. */
    static final int MAX_SIZE = 16 << 20;

    private final Map<String, String> strings;

    private PerfData(Map<String, String> strings) {
        this.strings = strings;
    }

    /**
     * The file of the target JVM {@code pid}, read as the JVM's user would ({@link TargetFiles}): the one it has
     * mapped, in its own namespace, {@code hsperfdata_<user>/<nspid>}, a regular file of that user's. Not looked for
     * in a list of {@code /tmp}, where any user may make directories by that name, as many as the list's bound.
     * Empty when it has none ({@code -XX:-UsePerfData}, or kept in memory alone) or it cannot be read. Whatever the
     * JVM's user put there instead (a FIFO, a link) is never opened.
     */
    static Optional<PerfData> of(long pid, TargetFiles files) {
        ProcStatus target = files.target();
        Optional<String> mapped = MappedFiles.ending(pid, "/hsperfdata_", "/" + target.namespacePid());
        if (mapped.isEmpty()) {
            return Optional.empty();
        }
        try {
            Optional<FileStat> status = files.status(mapped.get());
            if (status.isPresent()
                    && status.get().uid() == target.effectiveUid()
                    && status.get().isRegularFile()
                    && status.get().size() <= MAX_SIZE) {
                return Optional.of(parse(files.read(mapped.get(), MAX_SIZE)));
            }
        } catch (IOException | RuntimeException e) {
            // gone meanwhile, or a file that is no hsperfdata: the JVM's options decide
        }
        return Optional.empty();
    }

    /** @throws IOException when the bytes are not an hsperfdata file */
    static PerfData parse(byte[] bytes) throws IOException {
        if (bytes.length < PROLOGUE
                || ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN).getInt(0) != MAGIC) {
            throw new IOException("not an hsperfdata file");
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(bytes[4] == 1 ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
        int used = Math.min(Math.max(b.getInt(8), 0), bytes.length);
        int offset = b.getInt(24);
        int count = b.getInt(28);
        Map<String, String> strings = new HashMap<>();
        for (int i = 0; i < count && offset >= PROLOGUE && offset <= used - ENTRY_HEADER; i++) {
            int length = b.getInt(offset);
            if (length < ENTRY_HEADER || length > used - offset) {
                break;
            }
            String name = cString(bytes, offset + b.getInt(offset + 4), offset + length);
            int vector = b.getInt(offset + 8);
            int data = offset + b.getInt(offset + 16);
            if (name != null && bytes[offset + 12] == 'B' && vector > 0 && data >= offset && data <= offset + length) {
                String value = cString(bytes, data, Math.min(offset + length, data + vector));
                if (value != null) {
                    strings.put(name, value);
                }
            }
            offset += length;
        }
        return new PerfData(strings);
    }

    /** The string counter {@code name}, when the file has it. */
    Optional<String> string(String name) {
        return Optional.ofNullable(strings.get(name));
    }

    /** Whether the JVM says it accepts attach; empty when the file does not say. */
    Optional<Boolean> attachSupported() {
        return string("sun.rt.jvmCapabilities").filter(c -> !c.isEmpty()).map(c -> c.charAt(0) == '1');
    }

    /** The bytes from {@code start} to the first NUL before {@code end}; null when the range is unsound. */
    private static String cString(byte[] bytes, int start, int end) {
        if (start < 0 || start > end || end > bytes.length) {
            return null;
        }
        int nul = start;
        while (nul < end && bytes[nul] != 0) {
            nul++;
        }
        return nul == end ? null : new String(bytes, start, nul - start, StandardCharsets.UTF_8);
    }
}
