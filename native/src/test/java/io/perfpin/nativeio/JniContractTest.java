package io.perfpin.nativeio;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JniContractTest extends SyscallsContract {
    @Override
    Backend backend() {
        return Backend.JNI;
    }

    @Test
    void definesAClassInTheBootstrapLoaderOnce() throws Exception {
        Syscalls jni = jni();
        String name = BootProbe.class.getName();
        byte[] classFile = classFile(BootProbe.class);
        assertFalse(BootClasses.has(name), "not on the bootstrap path");
        assertEquals(-Errno.EINVAL, BootClasses.define(jni, "io.perfpin.nativeio.NotBootProbe", classFile),
                "a class file under another name is refused");
        assertEquals(-Errno.EINVAL, BootClasses.define(jni, name, new byte[] {1, 2, 3}), "no class file");

        assertEquals(0, BootClasses.define(jni, name, classFile));
        assertTrue(BootClasses.has(name));
        Class<?> defined = Class.forName(name, false, null);
        assertNull(defined.getClassLoader(), "the bootstrap class loader's");
        assertNotSame(BootProbe.class, defined, "the class path's copy is another class");
        assertEquals(-Errno.EINVAL, BootClasses.define(jni, name, classFile), "defined once");
        assertEquals(-Errno.ENOSYS, BootClasses.define(Backends.load(Backend.JNA), name, classFile),
                "only the C library defines classes");
    }

    @Test
    void releasesAFileMappingBeforeTheGcDoes(@TempDir Path dir) throws IOException {
        Syscalls jni = jni();
        Path file = dir.resolve("mapped");
        MappedByteBuffer mapped;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, 3 * 4096 + 100);
        }
        mapped.put(0, (byte) 42);
        assertTrue(mapsName(file), "mapped");
        assertEquals(-Errno.EINVAL, FileMappings.release(jni, mapped.slice(1, 10)), "a slice starts no mapping");
        assertEquals(-Errno.ENOSYS, FileMappings.release(Backends.load(Backend.JNA), mapped));

        assertEquals(0, FileMappings.release(jni, mapped));
        assertFalse(mapsName(file), "the file is no longer mapped");
        assertEquals(0, mapped.get(0), "the buffer reads empty memory");
        mapped.put(1, (byte) 7);
        byte[] content = Files.readAllBytes(file);
        assertEquals(42, content[0], "what was written before stays in the file");
        assertEquals(0, content[1], "a write after the release goes nowhere");
    }

    private static boolean mapsName(Path file) throws IOException {
        return Files.readAllLines(Paths.get("/proc/self/maps")).stream().anyMatch(l -> l.endsWith(" " + file));
    }

    private static Syscalls jni() {
        try {
            return Backends.load(Backend.JNI);
        } catch (BackendUnavailableException e) {
            Assumptions.abort(e.getMessage());
            throw e;
        }
    }

    private static byte[] classFile(Class<?> type) throws IOException {
        String name = type.getName();
        try (InputStream in = type.getResourceAsStream(name.substring(name.lastIndexOf('.') + 1) + ".class")) {
            return in.readAllBytes();
        }
    }

    /** Defined in the bootstrap loader by the test: nothing else there may know it. */
    static final class BootProbe {
    }
}
